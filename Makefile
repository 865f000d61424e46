GO ?= go
FUZZTIME ?= 3s

.PHONY: all build test unit purego race fuzz fuzz-short bench demo tools testdata vet

all: build

build:
	$(GO) build -o bin/unpack ./cmd/unpack

tools:
	bash scripts/install-tools.sh

vet:
	$(GO) vet ./...

unit:
	$(GO) test ./...

purego:
	$(GO) test -tags purego ./...

race:
	$(GO) test -race -short ./...

fuzz-short:
	bash scripts/fuzz.sh $(FUZZTIME)

fuzz:
	bash scripts/fuzz.sh $(or $(T),60s)

test: tools vet unit purego race fuzz-short

testdata:
	bash scripts/gen-testdata.sh
