package discover

// Reason says why [Walk] or [Sniff] skipped a path. Reasons are stable
// strings: they appear in `ctx status` output and its JSON.
type Reason string

// The skip reasons. Each [Skip] carries exactly one; when several rules match,
// the first in the order of the package documentation wins.
const (
	// ReasonGitignore: the path matched a .gitignore file or
	// .git/info/exclude.
	ReasonGitignore Reason = "gitignore"
	// ReasonCtxignore: the path matched a .ctxignore file (gitignore syntax,
	// nested like .gitignore) or a pattern in [Options.Exclude].
	ReasonCtxignore Reason = "ctxignore"
	// ReasonExcluded: a built-in exclude, such as a version-control,
	// dependency, cache or build-output directory, or a benchmark checkout
	// marker at the root.
	ReasonExcluded Reason = "excluded"
	// ReasonLockfile: a package-manager lockfile (package-lock.json, go.sum,
	// Cargo.lock, *.lock and the like).
	ReasonLockfile Reason = "lockfile"
	// ReasonMinified: a minified bundle or source map by name (*.min.js,
	// *.min.css, *.map), or content with very long lines (see [Sniff]).
	ReasonMinified Reason = "minified"
	// ReasonGenerated: a generated file, by a name such as *.pb.go or
	// *_pb2.py or by a header such as "Code generated ... DO NOT EDIT."
	// (see [Sniff]).
	ReasonGenerated Reason = "generated"
	// ReasonBinary: a known binary extension (images, archives, object
	// files, fonts, media, documents, compiled bytecode), or NUL or control
	// bytes in the first 8 KiB (see [Sniff]).
	ReasonBinary Reason = "binary"
	// ReasonTooLarge: the file is larger than [Options.MaxFileBytes].
	ReasonTooLarge Reason = "too-large"
	// ReasonSecret: a file that likely holds credentials (.env files,
	// private keys, certificates, credential files and stores, shell
	// histories), skipped unless
	// [Options.IncludeSecrets]. Env templates (.env.example, .env.sample,
	// .env.template, .env.dist) are not secrets.
	ReasonSecret Reason = "secret"
	// ReasonSymlink: a symbolic link that is not listed. A link to a
	// regular file inside the repository (the git work tree that holds the
	// root, else the root) is listed under its own path, unless its target
	// is skipped, in which case the link takes the target's reason. A link
	// that points outside the repository, dangles, loops, or points to a
	// directory (never followed: directory links can loop) or a special
	// file is skipped with this reason. The Detail says which and where the
	// link points.
	ReasonSymlink Reason = "symlink"
	// ReasonUnreadable: permission denied, or the path vanished while the
	// walk was running (deleted between reading its directory and looking at
	// it).
	ReasonUnreadable Reason = "unreadable"
	// ReasonSpecial: a socket, device, FIFO or other non-regular file.
	ReasonSpecial Reason = "special"
)
