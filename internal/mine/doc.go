// Package mine builds the training data of ctx's code-embedding model: it
// mines (natural language → code) pairs from source trees that registries
// install on a machine, using the same chunker as the index.
//
// Input is a list of [Root]s (a directory, a source ID and kind; helpers
// such as [GoStdRoots], [GoModuleRoots], [PythonRoots], [IncludeRoots],
// [NodeModulesRoots], [DebianPackageRoots], [DebianSourceRoots] and
// [TreeRoots] build them) and [Options]; output is a directory
// holding [PairsFile], one JSON [Pair] a line, and [ManifestFile], a
// [Manifest] of sources, versions, licences and counts.
//
// Pair kinds: "doc" (a doc comment or docstring → the definition without
// it), "name" (the split symbol name and breadcrumb, "read mime header
// (Reader)" → the definition's body) and "comment" (a comment inside a
// function → the statements after it).
//
// Invariants:
//   - the same roots, options and seed give byte-identical files;
//   - the split is by source group (a module, package or std directory),
//     never by chunk: a group is held out when a seeded hash of it falls
//     below [Options.Heldout];
//   - no source on the benchmark exclusion list (exclude.txt, a copy of
//     ../shared/bench/EXCLUDE.txt) is ever read: [Exclusions.Check] runs
//     before a root is walked, and the skip is recorded in the manifest;
//   - queries are at most 256 bytes and code at most 2 KiB, cut at word and
//     line boundaries.
package mine
