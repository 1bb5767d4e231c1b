package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/atlas-lakehouse/atlas/atlas/connect/server"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

func init() {
	register(command{
		Name:    "status",
		Summary: "show the broker (pid, address, topics, offsets) and the catalog (namespaces, tables); exit 1 when the broker is down or the catalog file is damaged",
		Run:     runStatus,
	})
}

func runStatus(ctx context.Context, args []string) error {
	var f stackFlags
	fs := newFlagSet("status", "[--home DIR] [--json]")
	f.addHome(fs)
	asJSON := fs.Bool("json", false, "print the status as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	info, err := stack.Status(ctx, f.home)
	if err != nil {
		return err
	}
	if *asJSON {
		out := struct {
			stack.Info
			// ConnectResume is what the Spark Connect server did with the
			// streaming queries of its previous run when it started.
			ConnectResume *server.ResumeReport `json:"connectResume,omitempty"`
		}{Info: info}
		if r, ok, err := server.ReadResumeReport(server.StateDir(info.Home)); err == nil && ok && info.Running {
			out.ConnectResume = &r
		}
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return fmt.Errorf("encode status: %w", err)
		}
	} else {
		printInfo(os.Stdout, info)
	}
	if info.Catalog.Damaged {
		return errors.New(info.Catalog.Error)
	}
	if !info.Reachable {
		return exitCode(1)
	}
	return nil
}

// printInfo writes a human-readable description of the stack.
func printInfo(w io.Writer, info stack.Info) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	defer tw.Flush()
	fmt.Fprintf(tw, "home\t%s\n", info.Home)
	switch {
	case info.External:
		fmt.Fprintf(tw, "kafka\texternal at %s, %s\n", join(info.Brokers), reach(info))
		if info.Running {
			fmt.Fprintf(tw, "daemon\tpid %d (no broker), since %s\n", info.PID, info.StartedAt.Local().Format("2006-01-02 15:04:05"))
			fmt.Fprintf(tw, "  log\t%s\n", info.LogFile)
		}
	case info.Running:
		fmt.Fprintf(tw, "kafka\t%s, pid %d, %s, since %s\n", info.Addr, info.PID, reach(info),
			info.StartedAt.Local().Format("2006-01-02 15:04:05"))
		fmt.Fprintf(tw, "  data\t%s\n", info.DataDir)
		fmt.Fprintf(tw, "  log\t%s\n", info.LogFile)
		fmt.Fprintf(tw, "  new topics\t%d partitions\n", info.Partitions)
	default:
		fmt.Fprintf(tw, "kafka\t%s\n", info.BrokerError)
	}
	if info.Reachable {
		fmt.Fprintf(tw, "  clients\t%s=%s\n", stack.EnvKafkaBrokers, join(info.Brokers))
		if len(info.Topics) == 0 {
			fmt.Fprintf(tw, "  topics\tnone\n")
		}
		for _, t := range info.Topics {
			fmt.Fprintf(tw, "  topic %s\t%d partitions, %d records, end offsets %s\n",
				t.Name, t.Partitions, t.Records, offsets(t.EndOffsets))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(info.Services)) {
		addr := info.Services[name]
		ep, ok := readEndpoint(info.Home)
		if name != "connect" || strings.HasPrefix(addr, "error:") || !ok || ep.Addr != addr {
			fmt.Fprintf(tw, "%s\t%s\n", name, addr)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s, Spark Connect clients: %s\n", name, addr, ep.URL)
		if ep.Fingerprint != "" {
			fmt.Fprintf(tw, "  TLS\tSHA-256 fingerprint %s\n", ep.Fingerprint)
		}
		for _, n := range ep.Notes {
			fmt.Fprintf(tw, "  token\t%s\n", n)
		}
		if info.Running {
			printResume(tw, info.Home)
		}
	}
	c := info.Catalog
	fmt.Fprintf(tw, "catalog\t%s (%s) %s\n", c.Name, c.Type, c.URI)
	fmt.Fprintf(tw, "  warehouse\t%s\n", c.Warehouse)
	if c.Error != "" {
		fmt.Fprintf(tw, "  error\t%s\n", c.Error)
	}
	for _, ns := range c.Namespaces {
		if len(ns.Tables) == 0 {
			fmt.Fprintf(tw, "  %s\tno tables\n", ns.Name)
		}
		for _, t := range ns.Tables {
			line := fmt.Sprintf("%d snapshots", t.Snapshots)
			if t.Health != nil {
				line = healthLine(*t.Health)
			}
			if t.Error != "" {
				line = "error: " + t.Error
			}
			fmt.Fprintf(tw, "  %s.%s.%s\t%s\n", c.Name, ns.Name, t.Name, line)
			if t.LastMaintenance != "" {
				fmt.Fprintf(tw, "    maintained\t%s\n", t.LastMaintenance)
			}
		}
	}
}

// printResume shows which streaming queries the Spark Connect server
// restarted when it started, and which it did not, with the reason.
func printResume(tw io.Writer, home string) {
	r, ok, err := server.ReadResumeReport(server.StateDir(home))
	switch {
	case err != nil:
		fmt.Fprintf(tw, "  resumed queries\t%v\n", err)
		return
	case !ok || len(r.Resumed)+len(r.NotResumed) == 0:
		return
	}
	at := r.At.Local().Format("2006-01-02 15:04:05")
	for _, q := range r.Resumed {
		fmt.Fprintf(tw, "  resumed\t%s (session %s) at %s\n", queryLabel(q), q.Session, at)
	}
	for _, q := range r.NotResumed {
		line := fmt.Sprintf("%s (session %s) at %s: %s", queryLabel(q), q.Session, at, q.Reason)
		if q.Record != "" {
			line += "; record kept in " + q.Record
		}
		fmt.Fprintf(tw, "  NOT resumed\t%s\n", line)
	}
}

func queryLabel(q server.ResumedQuery) string {
	if q.Name != "" {
		return q.Name
	}
	if q.ID != "" {
		return "query " + q.ID
	}
	return "a query"
}

func reach(info stack.Info) string {
	if info.Reachable {
		return "reachable"
	}
	return "NOT reachable: " + info.BrokerError
}

func offsets(o []int64) string {
	s := make([]string, len(o))
	for i, v := range o {
		s[i] = fmt.Sprintf("p%d=%d", i, v)
	}
	return strings.Join(s, " ")
}

func join(s []string) string { return strings.Join(s, ",") }
