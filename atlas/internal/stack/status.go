package stack

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// statusTimeout bounds each broker question Status asks.
const statusTimeout = 3 * time.Second

// Status describes the stack of home (lakehouse.Home() when empty): whether
// the daemon runs and answers, its topics with partition counts and end
// offsets, and the catalog's namespaces and tables with snapshot counts.
// A broker that is down is not an error: Info.Running and Info.Reachable
// say so. The catalog is configured from the environment
// (lakehouse.ConfigFromEnv).
func Status(ctx context.Context, home string) (Info, error) {
	o, err := Options{Home: home}.withDefaults()
	if err != nil {
		return Info{}, err
	}
	return status(ctx, o)
}

func status(ctx context.Context, o Options) (Info, error) {
	info, err := brokerStatus(ctx, o)
	if err != nil {
		return info, err
	}
	info.Catalog = catalogStatus(ctx, *o.Catalog)
	return info, nil
}

// brokerStatus fills the broker half of Info.
func brokerStatus(ctx context.Context, o Options) (Info, error) {
	info := Info{Home: o.Home, Brokers: envBrokers(), External: External(o.Addr)}
	if len(info.Brokers) == 0 {
		info.Brokers = []string{o.Addr}
	}
	if info.External {
		// A daemon may run the services (Spark Connect) against the
		// external cluster: `atlas up` started it.
		st, ok, err := readState(pathsOf(o.Home))
		if err != nil {
			return info, err
		}
		if ok && len(st.External) > 0 && processAlive(st.PID) {
			info.Running = true
			info.PID, info.LogFile, info.StartedAt, info.Services = st.PID, st.LogFile, st.StartedAt, st.Services
		}
	} else {
		p := pathsOf(o.Home)
		st, ok, err := readState(p)
		if err != nil {
			return info, err
		}
		if !ok || !processAlive(st.PID) {
			info.BrokerError = "not running"
			if ok {
				info.StalePID = st.PID
				info.BrokerError = fmt.Sprintf("not running (stale pid file of pid %d)", st.PID)
				logFile := st.LogFile
				if logFile == "" {
					logFile = p.logFile
				}
				if why := crashLine(logFile, st.PID); why != "" {
					info.Crash = why
					info.BrokerError = fmt.Sprintf("not running: pid %d died (stale pid file); %s", st.PID, why)
				}
			}
			return info, nil
		}
		info.Running = true
		info.PID, info.Addr, info.DataDir = st.PID, st.Addr, st.DataDir
		info.LogFile, info.Partitions, info.StartedAt = st.LogFile, st.Partitions, st.StartedAt
		info.Services = st.Services
		if info.LogFile == "" {
			info.LogFile = p.logFile
		}
		if st.Addr == "" {
			info.BrokerError = "starting (no address recorded yet)"
			return info, nil
		}
		if os.Getenv(EnvKafkaBrokers) == "" {
			info.Brokers = []string{st.Addr}
		}
	}
	topics, err := listTopics(ctx, info.Brokers)
	if err != nil {
		info.BrokerError = err.Error()
		return info, nil
	}
	info.Reachable = true
	info.Topics = topics
	return info, nil
}

// listTopics returns the topics of the cluster at brokers with their
// partition counts and offsets.
func listTopics(ctx context.Context, brokers []string) ([]TopicInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, statusTimeout)
	defer cancel()
	cl, err := NewClient(brokers, kgo.RequestRetries(1))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	if err := cl.Ping(ctx); err != nil {
		return nil, fmt.Errorf("kafka at %s does not answer: %w", strings.Join(brokers, ","), err)
	}
	adm := kadm.NewClient(cl)
	details, err := adm.ListTopics(ctx)
	if err != nil {
		return nil, fmt.Errorf("list topics at %s: %w", strings.Join(brokers, ","), err)
	}
	names := details.Names()
	if len(names) == 0 {
		return nil, nil
	}
	ends, err := adm.ListEndOffsets(ctx, names...)
	if err != nil {
		return nil, fmt.Errorf("list end offsets at %s: %w", strings.Join(brokers, ","), err)
	}
	starts, err := adm.ListStartOffsets(ctx, names...)
	if err != nil {
		return nil, fmt.Errorf("list start offsets at %s: %w", strings.Join(brokers, ","), err)
	}
	var out []TopicInfo
	for _, d := range details.Sorted() {
		if d.Topic == saveMarkerTopic {
			continue
		}
		ti := TopicInfo{Name: d.Topic, Partitions: int32(len(d.Partitions))}
		ti.EndOffsets = make([]int64, ti.Partitions)
		for p := range ti.Partitions {
			end, ok := ends.Lookup(d.Topic, p)
			if !ok || end.Err != nil {
				ti.EndOffsets[p] = -1
				continue
			}
			ti.EndOffsets[p] = end.Offset
			start := int64(0)
			if s, ok := starts.Lookup(d.Topic, p); ok && s.Err == nil {
				start = s.Offset
			}
			ti.Records += end.Offset - start
		}
		out = append(out, ti)
	}
	slices.SortFunc(out, func(a, b TopicInfo) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}
