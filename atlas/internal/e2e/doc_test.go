// Package e2e_test holds the whole-house tests: the engine run against a
// real embedded broker and catalog the way users run it. The scenarios
// checked against references recomputed from the raw Kafka records, SIGKILL
// crashes of a child process, broker outages, the Postgres catalog, and the
// notebooks and labs executed through the Jupyter kernel (TestNotebooks,
// TestLabNotebooks; `make notebook-test`). The engine's own tests stay in
// atlas/internal/engine; the helpers both use are in internal/enginetest.
package e2e_test
