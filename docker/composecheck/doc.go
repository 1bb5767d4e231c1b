// Package composecheck holds no code: its test reads docker/compose.yaml
// with compose-go, the parser Docker Compose v2 uses, and checks what a
// static read of docker/ can check where no Docker engine runs (CI, the
// development machines). It is a module of its own so that compose-go and
// its dependencies stay out of Atlas's go.mod.
package composecheck
