package atlas_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// cellFlags returns CELL_BUILD_TAGS and CELL_CGO_ENABLED of
// kernel/cellflags.sh: how the kernel builds every notebook cell.
func cellFlags(t *testing.T) (tags, cgo string) {
	t.Helper()
	path := filepath.Join("..", "kernel", "cellflags.sh")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the kernel's cell build flags: %v", err)
	}
	get := func(name string) string {
		m := regexp.MustCompile(`(?m)^` + name + `=(\S+)$`).FindSubmatch(src)
		if m == nil {
			t.Fatalf("%s sets no %s", path, name)
		}
		return string(m[1])
	}
	return get("CELL_BUILD_TAGS"), get("CELL_CGO_ENABLED")
}

// clientPackages are the packages of this module a notebook cell imports
// to talk to the server: the client and the types it hands out.
var clientPackages = []string{
	"github.com/atlas-lakehouse/atlas/atlas",
	"github.com/atlas-lakehouse/atlas/atlas/progress",
	"github.com/atlas-lakehouse/atlas/atlas/sketch",
}

// cellPackages are all the packages of this module a notebook cell may
// import: the client's, and atlas/display for a cell that draws its own
// go-echarts chart (it pays for go-echarts itself).
var cellPackages = append([]string{"github.com/atlas-lakehouse/atlas/atlas/display"}, clientPackages...)

// cellDeps lists the import graph of pkgs as the kernel builds a cell.
func cellDeps(t *testing.T, tags, cgo string, pkgs []string) []string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"list", "-deps", "-tags=" + tags, "-f", "{{.ImportPath}}"}, pkgs...)
	cmd := exec.Command(goTool, args...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED="+cgo, "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps printed %d packages, too few to be the client's graph:\n%s", len(deps), out)
	}
	return deps
}

// forbid reports every dep that is, or is under, a forbidden prefix.
func forbid(t *testing.T, what string, deps []string, forbidden []struct{ prefix, why string }) {
	t.Helper()
	for _, dep := range deps {
		for _, f := range forbidden {
			if dep == f.prefix || strings.HasPrefix(dep, f.prefix+"/") {
				t.Errorf("%s links %s: %s", what, dep, f.why)
			}
		}
	}
}

// TestCellImportGraph checks what a notebook cell that imports the client
// links when the kernel builds it (issue 9, item 2: a cell importing atlas
// builds in at most 1.5 times the time of one importing net/http,
// encoding/json and gonbui, and the linker's time follows the size of the
// import graph, used or not). Each package below would lengthen every
// cell's link, or break its build.
func TestCellImportGraph(t *testing.T) {
	tags, cgo := cellFlags(t)
	forbidden := []struct{ prefix, why string }{
		{"github.com/goccy/go-json", "arrow-go's JSON without the tag arrow_json_stdlib (about 1.3 MB per cell)"},
		{"github.com/atlas-lakehouse/atlas/atlas/internal/engine", "the engine runs in the server"},
		{"github.com/twmb/franz-go", "Kafka is the server's"},
		{"github.com/apache/iceberg-go", "Iceberg is the server's"},
		{"google.golang.org/grpc", "the client speaks gRPC over its own h2c transport"},
		{"google.golang.org/protobuf", "the client's messages are protobuf-go-lite code (sparklite): protobuf-go's runtime and descriptors are the server's (its reflection keeps every exported method of every linked type)"},
		{"github.com/aperturerobotics/protobuf-go-lite/types", "protobuf-go-lite's well-known types link its JSON runtime: the client's Any is generated (anylite)"},
		{"github.com/aperturerobotics/json-iterator-lite", "protobuf-go-lite's JSON runtime: the client's messages are binary only"},
		// geoarrow-go implements arrow's array.Builder with goccy's JSON
		// decoder, so it does not compile with arrow_json_stdlib.
		{"github.com/geoarrow/geoarrow-go", "Iceberg's geometry types are the server's, and do not build with the cells' tags"},
	}
	forbid(t, fmt.Sprintf("a cell built with -tags=%s CGO_ENABLED=%s", tags, cgo), cellDeps(t, tags, cgo, cellPackages), forbidden)

	// A cell that imports only the client links no chart library and no
	// table renderer: the server builds the live view's charts
	// (atlas.connect.ProgressCharts) and renders show()'s tables.
	// go-echarts renders through html/template, whose reflection
	// (MethodByName) makes the linker keep every exported method of every
	// type; fetching the echarts bundle (tar, npm) is `atlas assets`'s.
	forbidden = append(forbidden, []struct{ prefix, why string }{
		{"github.com/go-echarts/go-echarts", "the server builds the progress charts; only a cell importing atlas/display links go-echarts"},
		{"html/template", "go-echarts' renderer: its reflection keeps every exported method alive in the link"},
		{"text/template", "go-echarts' renderer (through html/template)"},
		{"archive/tar", "untarring the echarts npm package is `atlas assets`'s (atlas/internal/echartsfetch)"},
		{"os/exec", "running npm is `atlas assets`'s (atlas/internal/echartsfetch)"},
		{"github.com/atlas-lakehouse/atlas/atlas/internal/table", "the server renders show()'s tables (ShowString, HtmlString): the renderer instantiates every Arrow array type's methods"},
	}...)
	forbid(t, fmt.Sprintf("a cell importing only the client, built with -tags=%s CGO_ENABLED=%s,", tags, cgo), cellDeps(t, tags, cgo, clientPackages), forbidden)
}

// TestCellLinksNoUnusedCodecs builds a cell that uses the client the way a
// notebook does (a session, a query, Show, Rows, a streaming read) with
// the kernel's flags and reads the functions its binary contains. The
// client never calls a protobuf-go-lite method through an interface (see
// atlas/transport.go): one such call keeps, for every message type, the
// method of that name, and with it the decoders of every request, relation
// and expression message, or the encoders of every response, in every
// cell's link.
func TestCellLinksNoUnusedCodecs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a cell binary")
	}
	tags, cgo := cellFlags(t)
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cell := writeCell(t)
	bin := filepath.Join(dir, "cell.bin")
	cmd := exec.Command(goTool, "build", "-tags="+tags, "-o", bin, cell)
	cmd.Env = append(os.Environ(), "CGO_ENABLED="+cgo, "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	out, err := exec.Command(goTool, "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	syms := string(out)
	const lite = "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparklite."
	// The cell must decode responses and encode requests, or it does not
	// talk to the server at all: these must be there.
	for _, want := range []string{"(*ExecutePlanResponse).UnmarshalVT", "(*ExecutePlanRequest).MarshalVT"} {
		if !strings.Contains(syms, lite+want+"\n") {
			t.Errorf("the cell binary has no %s%s: the check reads the wrong binary", lite, want)
		}
	}
	for _, unwanted := range []string{
		"(*ExecutePlanRequest).UnmarshalVT", "(*AnalyzePlanRequest).UnmarshalVT", "(*Command).UnmarshalVT",
		"(*WriteStreamOperationStart).UnmarshalVT", "(*ExecutePlanResponse).MarshalVT", "(*AnalyzePlanResponse).MarshalVT",
	} {
		if strings.Contains(syms, lite+unwanted+"\n") {
			t.Errorf("a cell links %s%s: something calls a protobuf-go-lite method through an interface", lite, unwanted)
		}
	}
}

// writeCell writes a cell that uses the client the way a notebook does (a
// session, a query, Show, Rows, a streaming read, SQL) into a new package
// directory of this module (a cell outside it would not see the client),
// removed when the test ends, and returns the directory's import path
// relative to this package ("./cellbuild-...").
func writeCell(t *testing.T) string {
	t.Helper()
	pkgDir, err := os.MkdirTemp(".", "cellbuild-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(pkgDir) })
	src := `package main

import (
	"context"
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas"
)

func main() {
	spark := atlas.NewSession()
	df := spark.Table("lakehouse.gold.event_windows").Where(atlas.Col("count").Gt(1)).OrderBy("window_start")
	rows, err := df.Rows(context.Background())
	fmt.Println(len(rows), err)
	_ = df.Show(5)
	q, err := spark.ReadStream().Format("kafka").Option("subscribe", "events").Load().
		WriteStream().Format("memory").QueryName("q").Start()
	fmt.Println(err)
	if q != nil {
		fmt.Println(q.LastProgress(), q.AwaitTermination())
	}
	if sq, err := spark.SQL("SELECT 1"); err == nil {
		fmt.Println(sq.Count(context.Background()))
	}
}
`
	if err := os.WriteFile(filepath.Join(pkgDir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return "./" + filepath.Base(pkgDir)
}

// TestCellCompilesOnlyItsOwnCode compiles a notebook-like cell and lists
// the functions the compiler generates for it (-gcflags=-S applies to the
// cell's package only). Importing a package whose types contain an
// instantiated generic type makes the compiler instantiate that type's
// methods again in the importing package (dupok): a Session holding an
// eventbus.Bus[StreamingQueryListener] by value cost every cell 38 extra
// functions and a third of its compile time. A cell should compile its own
// code, its closures and type equality functions, nothing else.
func TestCellCompilesOnlyItsOwnCode(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a cell")
	}
	tags, cgo := cellFlags(t)
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	cell := writeCell(t)
	cmd := exec.Command(goTool, "build", "-tags="+tags, "-gcflags=-S", "-o", filepath.Join(t.TempDir(), "cell.bin"), cell)
	cmd.Env = append(os.Environ(), "CGO_ENABLED="+cgo, "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	var own, other []string
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.Contains(line, " STEXT ") {
			continue
		}
		fn := strings.Fields(line)[0]
		if strings.HasPrefix(fn, "main.") || strings.HasPrefix(fn, "type:.eq.") {
			own = append(own, fn)
		} else {
			other = append(other, fn)
		}
	}
	if len(own) == 0 {
		t.Fatalf("the compiler listed no function of the cell: the check reads the wrong output\n%s", out)
	}
	if len(other) > 0 {
		t.Errorf("a cell compiles %d functions of other packages again (a generic type instantiated in a type the client exports?):\n%s", len(other), strings.Join(other, "\n"))
	}
}
