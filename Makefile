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
	gofmt -l . | tee /dev/stderr | (! read)
	$(GO) vet $(PKGS)
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 $(PKGS)

fuzz:
	$(GO) test -run=X -fuzz=FuzzParse -fuzztime=60s ./internal/d/parser/

bench: build
	$(GO) run ./bench/run

clean:
	rm -rf bin
