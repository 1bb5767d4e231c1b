package stack

import (
	"fmt"
	"strings"
)

// BrokerLine says in one line which Kafka the stack uses, for a notebook's
// Setup cell: the broker this call started, the embedded broker that
// already ran (with its pid and address), or the external cluster named by
// ATLAS_KAFKA_BROKERS, by its addresses (atlas runs no broker for it; a
// pid is named only when the daemon of the services, such as the CLI's
// Spark Connect server, runs beside it).
func (i Info) BrokerLine() string {
	switch {
	case i.External && i.Started:
		return fmt.Sprintf("using the external Kafka cluster on %s ($%s); started the daemon of the services (pid %d), no broker", strings.Join(i.Brokers, ","), EnvKafkaBrokers, i.PID)
	case i.External && i.Running:
		return fmt.Sprintf("using the external Kafka cluster on %s ($%s); the daemon of the services already runs (pid %d), no broker", strings.Join(i.Brokers, ","), EnvKafkaBrokers, i.PID)
	case i.External:
		return fmt.Sprintf("using the external Kafka cluster on %s ($%s): atlas started nothing", strings.Join(i.Brokers, ","), EnvKafkaBrokers)
	case i.Started:
		return fmt.Sprintf("started the broker (pid %d) on %s", i.PID, i.Addr)
	default:
		return fmt.Sprintf("the broker already runs (pid %d) on %s", i.PID, i.Addr)
	}
}
