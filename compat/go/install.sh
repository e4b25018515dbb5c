#!/usr/bin/env bash
# Builds the Go compat driver (franz-go + kadm, IBM Sarama; versions pinned in go.mod/go.sum) into
# compat/go/bin/krill-go-compat. Modules come from the Go module proxy; Go's module and build caches stay
# in their default places. Idempotent: a second run rebuilds from the caches.
set -euo pipefail
cd "$(dirname "$0")"
command -v go >/dev/null || { echo "compat/go/install.sh: go is not installed" >&2; exit 1; }
go mod download
go mod verify
mkdir -p bin
go build -trimpath -o bin/krill-go-compat .
echo "compat/go: built bin/krill-go-compat ($(go version))"
