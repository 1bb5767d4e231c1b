// Package drivers links the Iceberg catalogs and object stores that the
// embedded default does not need, so that pointing Atlas at them is a
// matter of configuration: import it for its side effects,
//
//	import _ "github.com/atlas-lakehouse/atlas/atlas/drivers"
//
// and set ATLAS_CATALOG_URI=postgres://user:pass@host:5432/db (the SQL
// catalog on PostgreSQL), or ATLAS_CATALOG_TYPE=rest,
// ATLAS_WAREHOUSE=s3://bucket/prefix,
// ATLAS_CATALOG_PROPS for endpoints and credentials, and an s3://
// checkpointLocation or ATLAS_CHECKPOINT_ROOT=s3://bucket/prefix (reached
// with the same S3 settings). The atlas CLI imports it; notebook cells import it
// only when they need it, because the AWS SDK adds seconds to every cell's
// link.
package drivers

import (
	// The Iceberg REST catalog (Polaris, Nessie, Gravitino, Unity, the
	// iceberg-rest fixture), beside the embedded SQL catalog.
	_ "github.com/apache/iceberg-go/catalog/rest"
	// PostgreSQL for the SQL catalog: registers the database/sql driver
	// "pgx", which lakehouse.Config picks for postgres:// and
	// postgresql:// URIs.
	_ "github.com/jackc/pgx/v5/stdlib"
	// Iceberg table IO on S3 and S3-compatible stores (MinIO).
	_ "github.com/apache/iceberg-go/io/gocloud/s3"
	// Checkpoints on S3 (gocloud blob URLs), leased with conditional
	// writes so that a second query on one checkpoint is refused.
	_ "gocloud.dev/blob/s3blob"
)
