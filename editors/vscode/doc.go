// Package vscode holds the VS Code extension for ctx (a TypeScript project
// beside this file: package.json, src/, test/) and the Go test that runs
// the extension's tests against a ctx built from this module, so that
// `go test ./...` covers them. The package has no Go API.
package vscode
