//go:build atlas_drivers

package engine

// Built with -tags=atlas_drivers, every program linking the engine links
// the REST catalog and S3, so it reaches them by configuration alone,
// without importing atlas/drivers itself (the CLI and the server import it).
import _ "github.com/atlas-lakehouse/atlas/atlas/drivers"
