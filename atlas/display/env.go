package display

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/janpfeifer/gonb/gonbui"
)

// EnvDisplay names the environment variable that overrides the detected
// output kind: "text" forces plain text (even inside a GoNB notebook),
// "html" forces HTML (outside a notebook the HTML is written to stdout).
// Any other value, or none, means "detect".
const EnvDisplay = "ATLAS_DISPLAY"

// InNotebook reports whether output should be rendered as HTML for a
// notebook. It honours [EnvDisplay] first; otherwise it reports whether the
// program runs as a GoNB cell, which GoNB signals by passing the path of its
// display pipe in the GONB_PIPE environment variable (read by gonbui at
// start-up into gonbui.IsNotebook).
func InNotebook() bool {
	switch displayOverride() {
	case "text":
		return false
	case "html":
		return true
	}
	return gonbui.IsNotebook
}

func displayOverride() string {
	return strings.ToLower(strings.TrimSpace(os.Getenv(EnvDisplay)))
}

// surface is where rendered output goes: the GoNB front-end, or a plain
// writer. It exists so that the choice is made once, from the environment,
// and so that tests can observe what would be sent to a notebook.
type surface interface {
	// html reports whether this surface wants HTML rather than text.
	html() bool
	// live reports whether updateHTML replaces earlier output in place.
	live() bool
	// displayHTML shows an HTML fragment as a new output.
	displayHTML(fragment string)
	// updateHTML shows fragment in the output identified by id, creating it
	// on the first call and replacing it on later calls.
	updateHTML(id, fragment string)
	// text is where plain-text output is written.
	text() io.Writer
	// sync waits until everything sent has reached the front-end.
	sync()
}

// detectSurface picks the surface for this process from [InNotebook] and
// whether GoNB's display pipe is really there.
func detectSurface() surface {
	if !InNotebook() {
		return writerSurface{w: os.Stdout, asHTML: false}
	}
	if gonbui.IsNotebook {
		return gonbSurface{}
	}
	return writerSurface{w: os.Stdout, asHTML: true}
}

// gonbSurface sends HTML to the notebook through gonbui.
type gonbSurface struct{}

func (gonbSurface) html() bool                     { return true }
func (gonbSurface) live() bool                     { return true }
func (gonbSurface) displayHTML(fragment string)    { gonbui.DisplayHTML(fragment) }
func (gonbSurface) updateHTML(id, fragment string) { gonbui.UpdateHTML(id, fragment) }
func (gonbSurface) text() io.Writer                { return os.Stdout }
func (gonbSurface) sync()                          { gonbui.Sync() }

// writerSurface writes to a plain writer: text in a terminal, or HTML when
// ATLAS_DISPLAY=html outside a notebook (then it cannot update in place).
type writerSurface struct {
	w      io.Writer
	asHTML bool
}

func (s writerSurface) html() bool { return s.asHTML }
func (s writerSurface) live() bool { return false }
func (s writerSurface) displayHTML(fragment string) {
	fmt.Fprintln(s.w, fragment)
}
func (s writerSurface) updateHTML(_, fragment string) { fmt.Fprintln(s.w, fragment) }
func (s writerSurface) text() io.Writer               { return s.w }
func (s writerSurface) sync()                         {}
