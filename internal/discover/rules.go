package discover

import (
	"io/fs"
	"path"
	"sort"
	"strings"
)

// This file holds the built-in name rules. They look at a base name only (and,
// for a few directory names, at the sibling entries), never at contents, so
// the walk stays a readdir-and-lstat affair.

// rootMarkers are files at the root that benchmark checkouts leave behind.
var rootMarkers = map[string]bool{
	".materialized":  true,
	".missing-blobs": true,
}

// vcsNames are excluded whatever their type: .git is a file in worktrees and
// submodules.
var vcsNames = map[string]bool{
	".git": true, ".hg": true, ".svn": true, ".bzr": true, "_darcs": true,
	".jj": true, ".sl": true, "CVS": true,
}

// excludedDirs are directory names that never hold code worth indexing: they
// hold other people's code, caches, tool state or build outputs under names
// nobody uses for sources. The value is the detail shown in the skip.
var excludedDirs = map[string]string{
	// Dependencies and third-party code.
	"node_modules":     "dependencies",
	"bower_components": "dependencies",
	"jspm_packages":    "dependencies",
	"vendor":           "vendored code",
	"third_party":      "vendored code",
	"thirdparty":       "vendored code",
	"Pods":             "dependencies",
	"Carthage":         "dependencies",
	".bundle":          "dependencies",
	".dart_tool":       "dependencies",
	".pub-cache":       "dependencies",
	"elm-stuff":        "dependencies",
	"site-packages":    "dependencies",
	".venv":            "python virtualenv",
	"venv":             "python virtualenv",
	".eggs":            "python build state",
	"__pycache__":      "python bytecode cache",
	".stack-work":      "build output",

	// Caches.
	".cache":             "cache",
	".mypy_cache":        "cache",
	".pytest_cache":      "cache",
	".ruff_cache":        "cache",
	".hypothesis":        "cache",
	".tox":               "cache",
	".nox":               "cache",
	".parcel-cache":      "cache",
	".turbo":             "cache",
	".eslintcache":       "cache",
	".sass-cache":        "cache",
	".ccls-cache":        "cache",
	".gradle":            "cache",
	".terraform":         "cache",
	".nyc_output":        "coverage data",
	"htmlcov":            "coverage report",
	".serverless":        "build output",
	".next":              "build output",
	".nuxt":              "build output",
	".svelte-kit":        "build output",
	".angular":           "build output",
	".docusaurus":        "build output",
	".vercel":            "build output",
	".expo":              "build output",
	"_build":             "build output",
	".build":             "build output",
	"DerivedData":        "build output",
	".elixir_ls":         "tool state",
	".metals":            "tool state",
	".bloop":             "tool state",
	".bsp":               "tool state",
	".idea":              "IDE state",
	".vs":                "IDE state",
	".fleet":             "IDE state",
	".history":           "IDE state",
	".ipynb_checkpoints": "notebook checkpoints",
	// quilt's copies of the files its patches change, as they were before
	// (every Debian source tree with patches applied holds one).
	".pc": "quilt patch state",
}

// secretDirs are credential stores, skipped whole as directories of
// secrets and reported as such.
var secretDirs = set(".ssh", ".gnupg", ".aws", ".azure", ".password-store")

// secretDirPaths are credential stores known by their parent directory's
// name and their own: "<parent>/<name>".
var secretDirPaths = set(".config/gcloud", "share/keyrings", ".docker/contexts")

// buildDirs are build-output directory names that are also ordinary source
// directory names (the Go tree has go/build, cmd/dist, cmd/internal/obj and
// internal/coverage), so they are excluded only when a sibling entry shows
// the tool that writes them: the key is the directory name, the values are
// sibling names, or extensions when they start with a dot.
var buildDirs = map[string][]string{
	"target":   {"Cargo.toml", "pom.xml", "build.sbt", "project.clj"},
	"build":    {"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "setup.py", "pyproject.toml"},
	"dist":     {"package.json", "setup.py", "pyproject.toml"},
	"out":      {"package.json", "tsconfig.json"},
	"coverage": {"package.json"},
	"deps":     {"mix.exs"},
	"bin":      {".csproj", ".fsproj", ".vbproj"},
	"obj":      {".csproj", ".fsproj", ".vbproj"},
}

// dirMarkers are files whose presence inside a directory marks the whole
// directory as not worth indexing, whatever its name.
var dirMarkers = map[string]string{
	"pyvenv.cfg":   "python virtualenv",
	"CACHEDIR.TAG": "cache (CACHEDIR.TAG)",
}

// excludedDir reports whether the directory name is a built-in exclude, given
// the name of the directory that holds it and its siblings (sorted by
// name, as os.ReadDir returns them).
func excludedDir(parent, name string, siblings []fs.DirEntry) (Reason, string, bool) {
	if vcsNames[name] {
		return ReasonExcluded, "version control", true
	}
	if d, ok := excludedDirs[name]; ok {
		return ReasonExcluded, d, true
	}
	if secretDirs[name] {
		return ReasonSecret, "credential store", true
	}
	if secretDirPaths[parent+"/"+name] {
		return ReasonSecret, "credential store (" + parent + "/" + name + ")", true
	}
	if strings.HasSuffix(name, ".egg-info") {
		return ReasonExcluded, "python build state", true
	}
	markers, ok := buildDirs[name]
	if !ok {
		return "", "", false
	}
	for _, e := range siblings {
		if e.IsDir() {
			continue
		}
		sib := e.Name()
		for _, m := range markers {
			if sib == m || (m[0] == '.' && strings.HasSuffix(sib, m)) {
				return ReasonExcluded, "build output (next to " + sib + ")", true
			}
		}
	}
	return "", "", false
}

// lockNames are lockfiles that do not end in .lock.
var lockNames = map[string]bool{
	"package-lock.json":   true,
	"npm-shrinkwrap.json": true,
	"pnpm-lock.yaml":      true,
	"bun.lockb":           true,
	"go.sum":              true,
	"go.work.sum":         true,
	"packages.lock.json":  true,
	"gradle.lockfile":     true,
	"Package.resolved":    true,
	"deno.lock":           true,
	"flake.lock":          true,
}

// binaryExts are extensions of files that are never text.
var binaryExts = set(
	// Images.
	".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".icns", ".webp", ".tif", ".tiff",
	".psd", ".heic", ".heif", ".avif", ".xcf", ".raw", ".cr2", ".nef",
	// Archives and packages.
	".zip", ".tar", ".gz", ".tgz", ".bz2", ".tbz2", ".xz", ".txz", ".zst", ".lz", ".lz4",
	".lzma", ".7z", ".rar", ".jar", ".war", ".ear", ".aar", ".apk", ".ipa", ".whl", ".egg",
	".gem", ".nupkg", ".deb", ".rpm", ".dmg", ".iso", ".img", ".msi", ".cab", ".xpi", ".vsix",
	// Objects, executables and bytecode.
	".o", ".obj", ".a", ".lib", ".so", ".dylib", ".dll", ".exe", ".pdb", ".ilk",
	".class", ".pyc", ".pyo", ".pyd", ".wasm", ".elc", ".beam", ".rlib", ".dex", ".syso",
	".bin", ".elf", ".ko", ".node",
	// Fonts.
	".ttf", ".otf", ".woff", ".woff2", ".eot", ".ttc", ".pfb",
	// Audio and video.
	".mp3", ".mp4", ".m4a", ".m4v", ".wav", ".ogg", ".oga", ".ogv", ".flac", ".aac", ".wma",
	".avi", ".mov", ".mkv", ".webm", ".wmv", ".flv", ".mid", ".midi", ".opus",
	// Documents.
	".pdf", ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods", ".odp",
	".rtf", ".epub", ".mobi",
	// Data, databases and models.
	".db", ".sqlite", ".sqlite3", ".mdb", ".parquet", ".avro", ".orc", ".feather",
	".arrow", ".npy", ".npz", ".pkl", ".pickle", ".h5", ".hdf5", ".mat", ".sav",
	".onnx", ".pt", ".pth", ".ckpt", ".safetensors", ".gguf", ".tflite", ".mlmodel",
	".blend", ".fbx", ".glb", ".3ds", ".pak", ".swf", ".fla", ".sketch",
)

// minifiedSuffixes are name endings of minified bundles and source maps.
var minifiedSuffixes = []string{".min.js", ".min.mjs", ".min.cjs", ".min.css", "-min.js", ".map"}

// generatedSuffixes are name endings of files that code generators write.
var generatedSuffixes = []string{
	".pb.go", ".pb.gw.go", "_grpc.pb.go", ".pb.validate.go",
	"_pb2.py", "_pb2_grpc.py", "_pb2.pyi",
	".pb.cc", ".pb.h", ".pb.swift", "_pb.js", "_pb.d.ts", "_grpc_pb.js", "_grpc_pb.d.ts",
	".g.dart", ".freezed.dart", ".designer.cs",
}

// classifyName applies the name rules for files: lockfiles, binary
// extensions, minified and generated names. Secrets are separate (see
// secretFile) because [Options.IncludeSecrets] turns them off.
func classifyName(name string) (Reason, string, bool) {
	lower := strings.ToLower(name)
	ext := path.Ext(lower)
	if lockNames[name] || ext == ".lock" {
		return ReasonLockfile, "", true
	}
	if binaryExts[ext] {
		return ReasonBinary, "extension " + ext, true
	}
	for _, s := range minifiedSuffixes {
		if strings.HasSuffix(lower, s) {
			return ReasonMinified, "name ends in " + s, true
		}
	}
	for _, s := range generatedSuffixes {
		if strings.HasSuffix(lower, s) {
			return ReasonGenerated, "name ends in " + s, true
		}
	}
	if strings.HasPrefix(lower, "zz_generated") {
		return ReasonGenerated, "name starts with zz_generated", true
	}
	return "", "", false
}

// secretNames are exact (lower-case) names of credential files.
var secretNames = set(
	// Package registries and language tools.
	".npmrc", ".pypirc", ".gem-credentials", ".credentials", "settings-security.xml",
	".terraformrc", "terraform.rc",
	// Network logins, databases and version control.
	".netrc", "_netrc", ".git-credentials", ".gitcookies", ".pgpass", ".my.cnf", ".mylogin.cnf",
	".htpasswd", "htpasswd", ".fetchmailrc",
	// Cloud and infrastructure CLIs.
	"credentials", ".s3cfg", ".boto", ".passwd-s3fs", "passwd-s3fs", ".vault-token",
	".dockercfg", "application_default_credentials.json", "access_tokens.db", "credentials.db",
	"accesstokens.json", "msal_token_cache.json", "msal_token_cache.bin", "azureprofile.json",
	"kubeconfig", "rclone.conf", "terraform.tfstate", "terraform.tfstate.backup",
	// Environment and editor plugins that store logins.
	".envrc", "sftp-config.json", "sftp.json", ".ftpconfig", "sitemanager.xml", "recentservers.xml",
	// Applications whose main configuration holds database passwords and keys.
	"wp-config.php", "localsettings.php",
	// Shell and REPL histories, where secrets typed on a command line end up.
	".bash_history", ".zsh_history", ".sh_history", ".history", ".psql_history", ".mysql_history",
	".python_history", ".node_repl_history", ".irb_history", ".rediscli_history", ".sqlite_history",
)

// secretPaths are credential files known by their directory's name and
// their own: "<dir>/<name>".
var secretPaths = set(
	".docker/config.json", ".kube/config", ".m2/settings.xml", "gh/hosts.yml", ".config/hub",
	".composer/auth.json", "composer/auth.json", ".vnc/passwd", "doctl/config.yaml",
	".terraform.d/credentials.tfrc.json",
)

// secretExts are extensions of keys, certificates, keystores and encrypted
// files.
var secretExts = set(
	".pem", ".key", ".p12", ".pfx", ".pkcs12", ".crt", ".cer", ".der", ".csr", ".p8", ".pkcs8",
	".ppk", ".keystore", ".jks", ".jceks", ".bks", ".gpg", ".pgp", ".kdb", ".kdbx", ".keychain",
	".keychain-db", ".age",
)

// credentialExts are extensions of files that hold credentials among other
// settings: Terraform variables and state, VPN profiles with their keys,
// kubeconfigs, Azure publish profiles.
var credentialExts = set(".tfvars", ".tfstate", ".ovpn", ".kubeconfig", ".publishsettings")

// secretDataExts are the extensions that make secrets.* or secret.* a
// credential file; secrets.py or secrets.go is code about secrets.
var secretDataExts = set(
	".json", ".yaml", ".yml", ".toml", ".ini", ".env", ".txt", ".xml", ".properties",
	".conf", ".cfg", ".config", ".ejson", ".enc",
)

// envTemplateExts end env files that document variables rather than hold
// them: .env.example, .env.sample, .env.template and .env.dist are indexed.
var envTemplateExts = set(".example", ".sample", ".template", ".dist", ".tmpl", ".tpl")

// secretFile reports whether a file is a likely credential file, with the
// rule that matched, from its name, the name of its directory and its
// siblings (sorted by name).
func secretFile(dir, name string, siblings []fs.DirEntry) (string, bool) {
	lower := strings.ToLower(name)
	ext := path.Ext(lower)
	stem := strings.TrimSuffix(lower, ext)
	switch {
	case lower == ".env" || strings.HasPrefix(lower, ".env.") || ext == ".env":
		if envTemplateExts[ext] {
			return "", false
		}
		return "env file", true
	case secretNames[lower]:
		return "credential file", true
	case secretPaths[strings.ToLower(dir)+"/"+lower]:
		return "credential file (" + dir + "/" + name + ")", true
	case secretExts[ext]:
		return "key or certificate (" + ext + ")", true
	case credentialExts[ext]:
		return "credential file (" + ext + ")", true
	case strings.HasPrefix(lower, "id_rsa"), strings.HasPrefix(lower, "id_dsa"),
		strings.HasPrefix(lower, "id_ecdsa"), strings.HasPrefix(lower, "id_ed25519"),
		strings.HasPrefix(lower, "ssh_host_") && strings.Contains(lower, "_key") && ext != ".pub":
		return "ssh key", true
	case secretDataExts[ext] && (strings.HasPrefix(lower, "credentials") ||
		strings.HasPrefix(lower, "service-account") || strings.HasPrefix(lower, "service_account") ||
		strings.HasPrefix(lower, "client_secret")):
		return "credential file", true
	case strings.HasSuffix(lower, ".tfvars.json"), strings.HasSuffix(lower, ".tfstate.backup"),
		ext == ".json" && strings.Contains(lower, "firebase-adminsdk"):
		return "credential file", true
	case strings.HasPrefix(lower, "wp-config") && ext == ".php" && !strings.Contains(lower, "sample"):
		return "credential file", true
	case lower == "auth.json" && hasSibling(siblings, "composer.json"):
		return "credential file (composer auth.json)", true
	case (stem == "secrets" || stem == "secret") && secretDataExts[ext]:
		return "secrets file", true
	case strings.HasSuffix(lower, ".yml.enc") || strings.HasSuffix(lower, ".yaml.enc"):
		return "encrypted secrets file", true
	}
	return "", false
}

// hasSibling reports whether entries (sorted by name) hold a file name.
func hasSibling(entries []fs.DirEntry, name string) bool {
	i := sort.Search(len(entries), func(i int) bool { return entries[i].Name() >= name })
	return i < len(entries) && entries[i].Name() == name
}

func set(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}
