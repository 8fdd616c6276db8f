// Package eval measures retrieval on one repository with queries made
// from its own code: what `ctx eval` prints.
//
// Input: the (natural language → code) pairs [mine] mines from the
// repository's files, each with the file and lines of the code it pairs
// with. [Select] turns them into [Query]s: doc comments with the
// definition's own name taken out, split names, and comments inside
// bodies, each answered by exactly one file, sampled by a seeded hash.
// The engine runs them through its searches, [Grep] runs them as an
// agent without ctx would, and [Score] grades each ranked list of files
// against the query's file; [Summarize] folds those into a [System]'s
// [Metrics] and latencies. [WriteHTML] renders a [Report] as one
// self-contained page with server-side SVG charts.
//
// Invariants: the same pairs, options and seed select the same queries
// in the same order; metrics are file-level and lie in [0, 1].
package eval
