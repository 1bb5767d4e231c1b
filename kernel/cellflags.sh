# cellflags.sh: how every notebook cell is built, in one place. Sourced by
# kernel/install.sh (the kernel spec's GOFLAGS and CGO_ENABLED, the warm-up's
# build) and kernel/cellbuild-bench.sh (so the bench builds a cell exactly as
# the kernel does); atlas/cellbuild_test.go reads CELL_BUILD_TAGS from here.
# Measured effect on a client cell: kernel/README.md, "Cell build flags".
#
# arrow_json_stdlib: arrow-go's internal/json wraps encoding/json (which every
#   cell links anyway) instead of github.com/goccy/go-json, which arrow/array
#   otherwise links into every binary that reads Arrow (each array type's
#   MarshalJSON is reachable through the arrow.Array interface). The client
#   never formats Arrow as JSON; without the tag it builds and works the same.
# -ldflags=-s -w: no symbol table or DWARF, a shorter link.
# CGO_ENABLED=0: no C toolchain probe, no host objects, internal linking only
#   (net's pure-Go resolver; cells talk to 127.0.0.1). A cell that needs cgo
#   says `%env CGO_ENABLED 1` (its first build then compiles the cgo variants).
# (No drivers tag: cells are Spark Connect clients; the REST catalog, S3 and
# PostgreSQL live in the server, `atlas up`.)
CELL_BUILD_TAGS=arrow_json_stdlib
CELL_TAGS="-tags=$CELL_BUILD_TAGS"
# The value of GOFLAGS (the go command reads the quotes: one flag with a space).
CELL_GOFLAGS="$CELL_TAGS '-ldflags=-s -w'"
CELL_CGO_ENABLED=0
