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

.PHONY: all build demo test vet unit up down status bench bench-windows kernel kernel-test notebook-test lab clean

all: build

build:
	$(GO) build -o $(ATLAS) ./atlas/cmd/atlas

# The README's first command: build, start the embedded stack, produce data
# when the topics are empty, run both scenarios and print their tables.
demo: build
	$(ATLAS) up
	$(ATLAS) run events
	$(ATLAS) run cdc

test: vet unit

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

bench: bench-windows

bench-windows: build
	$(ATLAS) bench windows

kernel:
	bash kernel/install.sh

lab: kernel
	cd notebooks && /usr/bin/jupyter notebook --no-browser --ip=127.0.0.1 $(if $(filter 0,$(shell id -u)),--allow-root)

# The kernel harness's self-test, then every scenario notebook executed
# headless through the installed kernel, its charts checked in Chromium and
# its Write cell interrupted.
kernel-test: kernel
	bash kernel/test/selftest.sh

notebook-test: kernel
	set -e; for nb in notebooks/*/notebook.ipynb; do d=build/notebooks/$$(basename $$(dirname $$nb)); mkdir -p $$d; \
	  /usr/bin/python3 kernel/test/run_notebook.py $$nb --out $$d/notebook.out.ipynb; \
	  /usr/bin/python3 kernel/test/browser_test.py $$d/notebook.out.ipynb --screenshot $$d/notebook.png; \
	  /usr/bin/python3 kernel/test/interrupt_test.py $$nb --cell-tag write-query --max-seconds 5; done

clean:
	rm -rf $(BIN) build
