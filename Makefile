# Atlas: streaming lakehouse notebooks in Go.
#
#   make demo   set up everything and run the scenarios on the embedded stack
#   make test   vet and run every test
#
# ATLAS_HOME (default ~/.atlas) holds the broker data, the catalog, the
# warehouse, checkpoints and the kernel's tools.

GO      ?= go
BIN     := $(CURDIR)/bin
ATLAS   := $(BIN)/atlas
GOFLAGS_TEST ?=

.PHONY: all build demo test vet unit up down status reset bench bench-windows kernel kernel-test notebook-test lab clean proto

all: build

build:
	$(GO) build -o $(ATLAS) ./atlas/cmd/atlas

# The README's first command: build, install the Jupyter kernel (Debian's
# Jupyter as root, else the exact command to run), start the embedded stack,
# execute the six-section notebooks (notebooks/*/) headless (their Setup cells produce the data; the
# executed copies land in build/notebooks/) and print their Verify output,
# then print both tables from the command line. The CLI runs the notebooks'
# queries from their checkpoints, so it finds nothing new and only shows.
# NOTEBOOKS=0 skips the kernel and notebooks: the CLI then runs both
# scenarios itself.
NOTEBOOKS ?= 1
demo: build
	$(ATLAS) up
ifneq ($(NOTEBOOKS),0)
	$(MAKE) --no-print-directory notebooks
endif
	$(ATLAS) run events
	$(ATLAS) run cdc

# vet and unit tests, then the kernel installed privately under build/ with
# its harness self-test and every notebook (scenarios, fraud, labs) executed through it.
test: vet unit kernel-test notebook-test

vet:
	@test -z "$$(gofmt -l atlas)" || { echo "gofmt needed:"; gofmt -l atlas; exit 1; }
	$(GO) vet ./...

unit:
	$(GO) test $(GOFLAGS_TEST) -count=1 -timeout 20m ./...

up: build
	$(ATLAS) up

down: build
	$(ATLAS) down

status: build
	$(ATLAS) status

# Start a lab over: broker topics, tables and checkpoints deleted, kernel kept.
reset: build
	$(ATLAS) reset --yes

bench: bench-windows

bench-windows: build
	$(ATLAS) bench windows

# The Jupyter kernel "Go (Atlas)" for this user (tools in $ATLAS_HOME/bin).
kernel:
	bash kernel/install.sh

lab: kernel
	cd notebooks && /usr/bin/jupyter notebook --no-browser --ip=127.0.0.1 $(if $(filter 0,$(shell id -u)),--allow-root)

# The six-section notebooks (notebooks/*/notebook.ipynb) executed headless on the caller's stack (ATLAS_HOME,
# ATLAS_KAFKA_ADDR) into build/notebooks/<name>/notebook.out.ipynb (git
# ignores build/), each Verify cell's output printed.
notebooks: kernel
	bash kernel/test/demo_notebooks.sh

# The tests install their own kernel: tools under build/kernel-home, the spec
# under build/jupyter (JUPYTER_DATA_DIR), so they test this checkout and never
# re-point the user's "atlas" kernel; Chromium comes with it (as root).
TEST_JUPYTER := $(CURDIR)/build/jupyter

test-kernel:
	ATLAS_HOME=$(CURDIR)/build/kernel-home JUPYTER_DATA_DIR=$(TEST_JUPYTER) ATLAS_WITH_CHROMIUM=1 bash kernel/install.sh

# The notebook harness's self-test on its fixtures.
kernel-test: test-kernel
	JUPYTER_DATA_DIR=$(TEST_JUPYTER) bash kernel/test/selftest.sh $(CURDIR)/build/kernel-selftest

# Every scenario notebook executed through the kernel on a private stack,
# compared with references from the raw Kafka records, its charts drawn in
# headless Chromium, its Write cell interrupted and re-run (TestNotebooks).
# Executed notebooks and screenshots: build/notebook-test/.
notebook-test: test-kernel
	JUPYTER_DATA_DIR=$(TEST_JUPYTER) ATLAS_NOTEBOOK_TEST=1 ATLAS_NOTEBOOK_ARTIFACTS=$(CURDIR)/build/notebook-test \
	  $(GO) test -count=1 -timeout 20m -run '^Test(Lab)?Notebooks$$' -v ./atlas/internal/engine

.PHONY: notebooks test-kernel

# The Spark Connect Go code, regenerated from atlas/connect/proto with Debian's
# protoc (apt-get install protobuf-compiler) and the plugins go.mod pins as
# tools. The generated code is committed: building never needs protoc.
PROTO_DIR := atlas/connect/proto
proto:
	$(GO) build -o $(BIN)/protoc-gen-go google.golang.org/protobuf/cmd/protoc-gen-go
	$(GO) build -o $(BIN)/protoc-gen-go-grpc google.golang.org/grpc/cmd/protoc-gen-go-grpc
	protoc -I $(PROTO_DIR) \
	  --plugin=protoc-gen-go=$(BIN)/protoc-gen-go --go_out=. --go_opt=module=github.com/atlas-lakehouse/atlas \
	  --plugin=protoc-gen-go-grpc=$(BIN)/protoc-gen-go-grpc --go-grpc_out=. --go-grpc_opt=module=github.com/atlas-lakehouse/atlas \
	  $(PROTO_DIR)/spark/connect/*.proto $(PROTO_DIR)/atlas/connect/*.proto
	$(GO) run ./atlas/connect/proto/grpcsplit atlas/internal/connect/sparkpb/base_grpc.pb.go \
	  github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb atlas/internal/connect/sparkgrpc/base_grpc.pb.go

clean:
	rm -rf $(BIN) build
