# sonde: make build, make test, make lint, make bench.
GO      ?= go
BIN     := bin/sonde
PKGS    := ./...

.PHONY: all build test unit e2e lint fmt bench clean fuzz

all: build

build:
	$(GO) build -trimpath -o $(BIN) ./cmd/sonde

# Unit tests (unprivileged) and the privileged end-to-end suite (as root).
test: build unit e2e

unit:
	$(GO) vet $(PKGS)
	$(GO) test -count=1 $(shell $(GO) list ./... | grep -v /test$$)

e2e: build
	$(GO) test -count=1 ./test/

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

bench: build
	$(GO) run ./bench/uprobe -write
	$(GO) run ./bench/run

clean:
	rm -rf bin
