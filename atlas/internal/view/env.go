package view

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

// Surface is where rendered output goes: the GoNB front-end, or a plain
// writer. It exists so that the choice is made once, from the environment
// ([DetectSurface]), and so that tests can observe what would be sent to a
// notebook.
type Surface interface {
	// HTML reports whether this surface wants HTML rather than text.
	HTML() bool
	// Live reports whether UpdateHTML replaces earlier output in place.
	Live() bool
	// DisplayHTML shows an HTML fragment as a new output.
	DisplayHTML(fragment string)
	// UpdateHTML shows fragment in the output identified by id, creating it
	// on the first call and replacing it on later calls.
	UpdateHTML(id, fragment string)
	// Text is where plain-text output is written.
	Text() io.Writer
	// Sync waits until everything sent has reached the front-end.
	Sync()
}

// DetectSurface picks the surface for this process from [InNotebook] and
// whether GoNB's display pipe is really there: GoNB's display, else stdout
// (as HTML when ATLAS_DISPLAY=html, else as text).
func DetectSurface() Surface {
	if !InNotebook() {
		return WriterSurface{W: os.Stdout, AsHTML: false}
	}
	if gonbui.IsNotebook {
		return gonbSurface{}
	}
	return WriterSurface{W: os.Stdout, AsHTML: true}
}

// gonbSurface sends HTML to the notebook through gonbui.
type gonbSurface struct{}

func (gonbSurface) HTML() bool                     { return true }
func (gonbSurface) Live() bool                     { return true }
func (gonbSurface) DisplayHTML(fragment string)    { gonbui.DisplayHTML(fragment) }
func (gonbSurface) UpdateHTML(id, fragment string) { gonbui.UpdateHTML(id, fragment) }
func (gonbSurface) Text() io.Writer                { return os.Stdout }
func (gonbSurface) Sync()                          { gonbui.Sync() }

// WriterSurface writes to a plain writer: text in a terminal, or HTML when
// ATLAS_DISPLAY=html outside a notebook (then it cannot update in place).
type WriterSurface struct {
	W      io.Writer
	AsHTML bool
}

// HTML reports whether s writes HTML.
func (s WriterSurface) HTML() bool { return s.AsHTML }

// Live is false: a writer cannot replace what it wrote.
func (s WriterSurface) Live() bool { return false }

// DisplayHTML writes fragment and a newline.
func (s WriterSurface) DisplayHTML(fragment string) { fmt.Fprintln(s.W, fragment) }

// UpdateHTML writes fragment and a newline, as a new output.
func (s WriterSurface) UpdateHTML(_, fragment string) { fmt.Fprintln(s.W, fragment) }

// Text returns the writer.
func (s WriterSurface) Text() io.Writer { return s.W }

// Sync does nothing: writes are done when they return.
func (s WriterSurface) Sync() {}
