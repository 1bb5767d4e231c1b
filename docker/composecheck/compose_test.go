package composecheck

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
)

// load parses docker/compose.yaml as `docker compose -f docker/compose.yaml`
// does: interpolation, env_file, normalization and the schema check.
func load(t *testing.T) *types.Project {
	t.Helper()
	opts, err := cli.NewProjectOptions([]string{"../compose.yaml"},
		cli.WithWorkingDirectory(".."),
		cli.WithResolvedPaths(true),
	)
	if err != nil {
		t.Fatal(err)
	}
	p, err := opts.LoadProject(context.Background())
	if err != nil {
		t.Fatalf("compose-go cannot load docker/compose.yaml: %v", err)
	}
	return p
}

// read returns a file of the repository, relative to this directory.
func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// pinned matches an image reference with an explicit tag that is not latest.
var pinned = regexp.MustCompile(`^[^:@\s]+(:[0-9A-Za-z][0-9A-Za-z._-]*|@sha256:[0-9a-f]{64})$`)

func TestComposeParsesAndServicesAreAsExpected(t *testing.T) {
	p := load(t)
	want := []string{"atlas", "minio", "minio-init", "redpanda", "rest"}
	if got := p.ServiceNames(); !slices.Equal(sorted(got), want) {
		t.Fatalf("services %v, want %v", got, want)
	}
}

// TestImagesArePinnedAndNotFromGoneRepositories: every image has an
// explicit tag other than latest, and MinIO's come from quay.io, since
// minio/minio and minio/mc are gone from Docker Hub.
func TestImagesArePinnedAndNotFromGoneRepositories(t *testing.T) {
	for name, s := range load(t).Services {
		if s.Build != nil {
			continue
		}
		if !pinned.MatchString(s.Image) || strings.HasSuffix(s.Image, ":latest") {
			t.Errorf("service %s: image %q is not pinned to a tag", name, s.Image)
		}
		if strings.Contains(s.Image, "minio/") && !strings.HasPrefix(s.Image, "quay.io/minio/") {
			t.Errorf("service %s: image %q is from Docker Hub, where MinIO no longer publishes; use quay.io/minio/...", name, s.Image)
		}
	}
}

// TestPortsOnLoopbackOnly: nothing is published beyond 127.0.0.1.
func TestPortsOnLoopbackOnly(t *testing.T) {
	for name, s := range load(t).Services {
		for _, port := range s.Ports {
			if port.HostIP != "127.0.0.1" {
				t.Errorf("service %s publishes %s:%d on %q, want 127.0.0.1", name, port.Published, port.Target, port.HostIP)
			}
		}
	}
}

// TestStateLivesInNamedVolumes: the broker's data, the objects, the REST
// catalog's database, Atlas's checkpoints, its records of running queries,
// the fraud notebook's outputs and the notebooks themselves are each on a
// named volume declared at the top level, so recreating a container loses
// none of them and resumes the queries that ran.
func TestStateLivesInNamedVolumes(t *testing.T) {
	p := load(t)
	atlasHome := dockerfileEnv(t)["ATLAS_HOME"]
	if atlasHome == "" {
		t.Fatal("the Dockerfile sets no ATLAS_HOME")
	}
	restDB := strings.TrimPrefix(envOf(p.Services["rest"].Environment, "CATALOG_URI"), "jdbc:sqlite:file:")
	notebooks := dockerfileWorkdir(t)
	for _, m := range []struct{ service, target string }{
		{"redpanda", "/var/lib/redpanda/data"},
		{"minio", "/data"},
		{"rest", filepath.Dir(restDB)},
		{"atlas", filepath.Join(atlasHome, "checkpoints")},
		{"atlas", filepath.Join(atlasHome, "run")},
		{"atlas", filepath.Join(atlasHome, "fraud_velocity")},
		{"atlas", notebooks},
	} {
		service, target := m.service, m.target
		found := false
		for _, v := range p.Services[service].Volumes {
			if v.Type == types.VolumeTypeVolume && v.Target == target {
				if _, ok := p.Volumes[v.Source]; !ok {
					t.Errorf("service %s mounts volume %q, which the top level does not declare", service, v.Source)
				}
				found = true
			}
		}
		if !found {
			t.Errorf("service %s: no named volume at %s (mounts %v)", service, target, p.Services[service].Volumes)
		}
	}
}

// envOf returns a service's environment variable, "" when unset.
func envOf(env types.MappingWithEquals, key string) string {
	if v := env[key]; v != nil {
		return *v
	}
	return ""
}

// TestRESTCatalogIsFileBackedAndHealthChecked: the REST fixture's default
// catalog is an in-memory sqlite database that forgets every table on
// restart; it must be a file, and Atlas must wait until the catalog
// answers.
func TestRESTCatalogIsFileBackedAndHealthChecked(t *testing.T) {
	p := load(t)
	rest := p.Services["rest"]
	uri := envOf(rest.Environment, "CATALOG_URI")
	if !strings.HasPrefix(uri, "jdbc:sqlite:file:/") || strings.Contains(uri, "memory") {
		t.Errorf("rest: CATALOG_URI %q, want a sqlite file (jdbc:sqlite:file:/...)", uri)
	}
	if rest.HealthCheck == nil || len(rest.HealthCheck.Test) == 0 || !strings.Contains(strings.Join(rest.HealthCheck.Test, " "), "/v1/config") {
		t.Errorf("rest: healthcheck %+v, want a request to /v1/config", rest.HealthCheck)
	}
	if d, ok := p.Services["atlas"].DependsOn["rest"]; !ok || d.Condition != types.ServiceConditionHealthy {
		t.Errorf("atlas depends on rest with %+v, want service_healthy", d)
	}
}

// TestAtlasEnvironment: atlas.env reaches the atlas service and names the
// services of the file.
func TestAtlasEnvironment(t *testing.T) {
	env := load(t).Services["atlas"].Environment
	for k, want := range map[string]string{
		"ATLAS_KAFKA_BROKERS": "redpanda:9092",
		"ATLAS_CATALOG_TYPE":  "rest",
		"ATLAS_CATALOG_URI":   "http://rest:8181",
		"ATLAS_WAREHOUSE":     "s3://warehouse/",
	} {
		if got := envOf(env, k); got != want {
			t.Errorf("atlas: %s=%q, want %q", k, got, want)
		}
	}
}

// dockerfileEnv returns the ENV settings of docker/Dockerfile.
func dockerfileEnv(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(read(t, "../Dockerfile"), "\n") {
		if rest, ok := strings.CutPrefix(line, "ENV "); ok {
			for _, kv := range strings.Fields(rest) {
				if k, v, ok := strings.Cut(kv, "="); ok {
					out[k] = v
				}
			}
		}
	}
	return out
}

// TestDockerfile: the Go image is the exact version go.mod names, and the
// image installs and starts JupyterLab (not the classic notebook) at a
// pinned version.
func TestDockerfile(t *testing.T) {
	df := read(t, "../Dockerfile")
	var goVersion string
	for _, line := range strings.Split(read(t, "../../go.mod"), "\n") {
		if v, ok := strings.CutPrefix(line, "go "); ok {
			goVersion = strings.TrimSpace(v)
		}
	}
	if goVersion == "" {
		t.Fatal("go.mod has no go directive")
	}
	from := regexp.MustCompile(`(?m)^FROM golang:(\S+?)(-\S+)?$`).FindStringSubmatch(df)
	if from == nil || from[1] != goVersion {
		t.Errorf("Dockerfile FROM %v, want golang:%s (go.mod's go version)", from, goVersion)
	}
	if !regexp.MustCompile(`jupyterlab==(\$\{JUPYTERLAB_VERSION\}|[0-9])`).MatchString(df) ||
		!regexp.MustCompile(`(?m)^ARG JUPYTERLAB_VERSION=[0-9]+\.[0-9]+\.[0-9]+$`).MatchString(df) {
		t.Error("Dockerfile does not install a pinned JupyterLab")
	}
	cmd := regexp.MustCompile(`(?m)^CMD (.*)$`).FindStringSubmatch(df)
	if cmd == nil || !regexp.MustCompile(`jupyter", "lab"`).MatchString(cmd[1]) {
		t.Errorf("Dockerfile CMD %v, want JupyterLab (jupyter lab)", cmd)
	}
}

// TestDockerignore: the build context leaves out git, the builds and the
// executed notebooks.
func TestDockerignore(t *testing.T) {
	f, err := os.Open("../../.dockerignore")
	if err != nil {
		t.Fatalf("no .dockerignore at the build context's root: %v", err)
	}
	defer f.Close()
	var patterns []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			patterns = append(patterns, strings.TrimSuffix(strings.TrimPrefix(l, "/"), "/"))
		}
	}
	for _, want := range []string{".git", "bin", "build"} {
		if !slices.Contains(patterns, want) {
			t.Errorf(".dockerignore lacks %s (it has %v)", want, patterns)
		}
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// dockerfileWorkdir returns the Dockerfile's last WORKDIR: where the image
// starts Jupyter, which is the notebooks folder.
func dockerfileWorkdir(t *testing.T) string {
	t.Helper()
	dir := ""
	for _, line := range strings.Split(read(t, "../Dockerfile"), "\n") {
		if rest, ok := strings.CutPrefix(line, "WORKDIR "); ok {
			dir = strings.TrimSpace(rest)
		}
	}
	if dir == "" {
		t.Fatal("the Dockerfile sets no WORKDIR")
	}
	return dir
}
