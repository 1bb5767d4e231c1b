package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestHelpListsVisibleCommands(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"help"}, &out, &errOut); code != 0 {
		t.Fatalf("atlas help: exit %d, stderr %s", code, errOut.String())
	}
	var listed []string
	inList := false
	for _, line := range strings.Split(out.String(), "\n") {
		switch {
		case line == "commands:":
			inList = true
		case inList && strings.HasPrefix(line, "  "):
			listed = append(listed, strings.Fields(line)[0])
		case inList:
			inList = false
		}
	}
	want := []string{}
	for name, c := range commands {
		if !c.Hidden {
			want = append(want, name)
		}
	}
	if len(listed) != len(want)+1 || listed[len(listed)-1] != "help" {
		t.Fatalf("help lists %v, want the %d visible commands %v then help", listed, len(want), want)
	}
	for _, n := range []string{"up", "down", "status"} {
		if !strings.Contains(out.String(), "  "+n+" ") {
			t.Errorf("help does not list %s", n)
		}
	}
	if strings.Contains(out.String(), "broker-daemon") {
		t.Error("help lists the hidden broker-daemon command")
	}
}

func TestUnknownCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"nope"}, &out, &errOut); code != 2 {
		t.Fatalf("atlas nope: exit %d, want 2", code)
	}
	if !strings.Contains(errOut.String(), `unknown command "nope"`) {
		t.Fatalf("stderr = %q", errOut.String())
	}
	if code := run(context.Background(), nil, &out, &errOut); code != 2 {
		t.Fatalf("atlas without a command: exit %d, want 2", code)
	}
}

func TestCommandExitCode(t *testing.T) {
	register(command{Name: "test-exit", Run: func(context.Context, []string) error { return exitCode(3) }, Hidden: true})
	defer delete(commands, "test-exit")
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"test-exit"}, &out, &errOut); code != 3 || errOut.Len() != 0 {
		t.Fatalf("exit %d, stderr %q; want 3 and no message", code, errOut.String())
	}
}
