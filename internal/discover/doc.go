// Package discover is the first stage of the index pipeline: it walks a
// repository and decides which files are worth indexing.
//
// Input is a root directory and [Options]; output is a [Result] holding the
// indexable files and, for everything else, a [Skip] with its [Reason]. The
// rules, in the order they are applied to each directory entry:
//
//  1. Built-in excludes (reason [ReasonExcluded]): version-control
//     directories, dependency and virtual-env directories, caches, IDE state
//     (.idea, but not .vscode, whose few files are written by hand), build
//     outputs, and the benchmark checkout markers .materialized and
//     .missing-blobs at the root. Build-output names that are also common
//     source directory names are excluded only next to the project file of a
//     tool that writes them there: target next to Cargo.toml, pom.xml or
//     build.sbt; build next to a Gradle or Python project file; dist next to
//     package.json or a Python project file; out and coverage next to
//     package.json; bin and obj next to a .NET project file. (The Go tree, for
//     one, has go/build, cmd/dist, cmd/internal/obj and internal/coverage.)
//  2. Secrets ([ReasonSecret]) such as .env files (not the templates
//     .env.example, .env.sample, .env.template, .env.dist), private keys,
//     certificates and keystores, the credential files of package
//     registries, cloud and infrastructure tools (.npmrc, .pypirc, .netrc,
//     .git-credentials, .vault-token, .terraformrc, *.tfvars, kubeconfig,
//     gcloud's application_default_credentials.json), files known by their
//     directory too (.docker/config.json, .kube/config, .m2/settings.xml)
//     or by a sibling (composer's auth.json next to composer.json), shell
//     histories, and the directories .ssh, .gnupg, .aws, .azure,
//     .password-store and .config/gcloud, unless [Options.IncludeSecrets].
//     The index also masks secrets inside the files it keeps (see
//     internal/secrets).
//  3. Ignore files with git semantics ([ReasonGitignore]): every .gitignore
//     from the top of the enclosing git work tree down, plus
//     .git/info/exclude; a pattern applies relative to the directory of its
//     file, and a directory that is ignored is not entered, so a negation
//     cannot re-include anything below it, exactly as in git. .gitignore
//     files apply in a tree without .git too (an exported or materialized
//     checkout). A root that lies in a directory the work tree ignores was
//     chosen on purpose: only the ignore files at and below it apply. Global
//     excludes (core.excludesFile) are not read: they describe one user's
//     machine, not the repository.
//  4. .ctxignore files (same syntax, nested too) and [Options.Exclude]
//     ([ReasonCtxignore]).
//  5. Name rules for files: lockfiles, known binary extensions, minified
//     bundles and source maps, and well-known generated names such as *.pb.go.
//  6. Size ([ReasonTooLarge]), readability ([ReasonUnreadable]), symlinks
//     ([ReasonSymlink]) and special files ([ReasonSpecial]).
//
// Symbolic links: a link to a regular file inside the repository is listed
// under its own path (the path the user sees), with its target's size and
// modification time, so editing the target makes the link's file change
// too. "The repository" is the git work tree that encloses the root
// (found by walking up to a .git directory or file), else the root itself,
// so a package below the top of a work tree may link to files in sibling
// directories. The target is judged by the rules above as if walked under
// its real path: a link to an ignored, excluded, secret, oversized or
// minified file takes that file's reason, with a detail naming the target,
// so a link never brings into the index a file the rules keep out. Targets
// inside the root get exactly the root's rules; targets elsewhere in the
// work tree get the rules from the top of the work tree, without
// [Options.Exclude], whose patterns are relative to the root. The link's
// own path must pass the rules too. A link whose target is outside the
// repository, does not exist, or is reached through a loop of links, and a
// link to a directory or a special file, are skipped with [ReasonSymlink].
// Links are resolved with a bounded number of hops, so a loop never hangs
// the walk. A file reached through a link inside the root is listed twice,
// under the link's path and under its own.
//
// [Walk] reads ignore files but never the files it lists; the index pipeline calls [Sniff] on the
// bytes it reads anyway, to drop binary, minified and generated files.
//
// Invariants: paths in a [Result] are slash-separated and relative to the
// symlink-resolved root; a skipped directory appears once and its contents
// are not listed; directories behind symlinks are never followed, so a walk
// always terminates; no path outside the root is ever listed, and no file
// outside the repository is ever read through a listed path. [CheckRoot],
// [FindRoot] and [Confine] carry the safety rules for choosing a root and for
// resolving paths that clients pass in.
package discover
