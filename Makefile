# Thin wrapper; the commands themselves are in AGENTS.md.
.PHONY: build test test-short lint bench fuzz
build:
	go build -o bin/ctx ./cmd/ctx
test:
	go test -race ./...
test-short:
	go test -short ./...
lint:
	go vet ./... && test -z "$$(gofmt -l cmd internal)"
bench:
	go test -run='^$$' -bench=. -benchmem ./internal/...
fuzz:
	go test -run='^$$' -fuzz=FuzzChunk -fuzztime=60s ./internal/chunk
