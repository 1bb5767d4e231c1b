//go:build atlas_drivers

package engine

// Built with -tags=atlas_drivers (the kernel installed with
// ATLAS_KERNEL_DRIVERS=1, as the Docker image does), every program using
// atlas links the REST catalog and S3, so notebooks reach them by
// configuration alone. Without the tag, cells link faster and only the
// embedded default (SQL catalog, local files) is available.
import _ "github.com/atlas-lakehouse/atlas/atlas/drivers"
