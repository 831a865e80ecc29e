# The two commands of README.md: `make serve` and `make test`. Each runs scripts/setup first.
SHELL := /bin/bash
export PATH := $(CURDIR)/tools/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)

.PHONY: setup serve dist test native clippy size e2e fmt

setup:
	@scripts/setup

## Serve the release build on http://127.0.0.1:8080 (rebuilds on change; scripts/bundle).
serve: setup
	scripts/bundle serve --port 8080

## Every test: formatting, native tests, clippy (native and wasm) with warnings denied,
## the release wasm build and its size budget, and the headless-Chromium tests.
test: setup fmt native clippy dist size e2e

fmt:
	cargo fmt --all -- --check

native:
	cargo test

clippy:
	cargo clippy --all-targets -- -D warnings
	cargo clippy -p e2e --all-targets -- -D warnings
	cargo clippy --target wasm32-unknown-unknown --lib --bins -- -D warnings

## The release bundle in dist/: static files with relative URLs, to copy to the root of any static
## host or under any sub-path (README "Publish"). scripts/bundle: cargo, wasm-bindgen, wasm-opt.
dist: setup
	scripts/bundle build --dist dist

size:
	@scripts/wasm-size

e2e:
	cargo test -p e2e -- --nocapture
