# sonde: make build, make test, make lint, make bench.
GO      ?= go
# Static binaries without cgo: nothing here needs C, and a cgo runtime
# (pulled in by package net's resolver) costs sonde about 1 MiB of RSS and
# threads of its own.
export CGO_ENABLED ?= 0
BIN     := bin/sonde
PKGS    := ./...

.PHONY: all build ui test unit e2e lint fmt bench clean fuzz

all: build

build: ui
	$(GO) build -trimpath -o $(BIN) ./cmd/sonde
	$(GO) build -trimpath -o bin/sonded ./cmd/sonded

# The web UI (ui/) is bundled by esbuild into internal/ui/dist, which
# bin/sonded embeds: its npm packages come from ui/package-lock.json
# (npm ci, again only when the lockfile changes).
NPM     ?= npm
ui: ui/node_modules/.installed
	cd ui && $(NPM) run --silent build

ui/node_modules/.installed: ui/package.json ui/package-lock.json
	cd ui && $(NPM) ci --no-audit --no-fund
	touch $@

# Packages whose tests need root (their TestMain is testenv.Root): the
# kernel, tracefs, other processes. The rest need no privilege.
PRIV    = $(shell $(GO) list -f '{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}' ./... | grep 'internal/testenv' | grep -v '^[^ ]*/internal/testenv ' | cut -d' ' -f1)
UNPRIV  = $(filter-out $(PRIV) %/test,$(shell $(GO) list ./...))

# Unit tests (no privilege needed), then the privileged ones (as root):
# the packages that talk to the kernel, and the end-to-end suite.
test: build unit e2e

unit:
	$(GO) vet $(PKGS)
	$(GO) test -count=1 $(UNPRIV)
	cd ui && $(NPM) test --silent

# One package at a time: these tests trace the whole machine, and two of
# them at once see each other's processes and load.
e2e: build
	$(GO) test -p 1 -count=1 -timeout 25m $(PRIV) ./test/

lint:
	gofmt -l . | tee /dev/stderr | (! read -r _)
	$(GO) vet $(PKGS)
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 $(PKGS)

# Every fuzz target for FUZZTIME each; none may panic.
FUZZTIME ?= 30s
fuzz:
	$(GO) test -run=X -fuzz=FuzzParse -fuzztime=$(FUZZTIME) ./internal/d/parser/
	$(GO) test -run=X -fuzz=FuzzCheck -fuzztime=$(FUZZTIME) ./internal/d/check/
	$(GO) test -run=X -fuzz=FuzzCompile -fuzztime=$(FUZZTIME) ./internal/codegen/
	$(GO) test -run=X -fuzz=FuzzDecode -fuzztime=$(FUZZTIME) ./internal/consume/
	$(GO) test -run=X -fuzz=FuzzPrintf -fuzztime=$(FUZZTIME) ./internal/format/
	$(GO) test -run=X -fuzz=FuzzBuckets -fuzztime=$(FUZZTIME) ./internal/format/

# bench/agent: sonded's CPU, RSS and BPF cost per event, and the store
# (bench/store); it rewrites its own section of BENCHMARKS.md. bench/ui:
# the web UI's first renders and live frame times in Chromium (its own section).
bench: build
	$(GO) run ./bench/uprobe -write
	$(GO) run ./bench/run
	$(GO) run ./bench/agent -write
	$(GO) run ./bench/ui -write
	$(GO) run ./bench/prom
	$(GO) run ./bench/gens

clean:
	rm -rf bin ui/node_modules
	find internal/ui/dist -type f ! -name README -delete
