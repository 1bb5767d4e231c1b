// Package authtoken keeps the token that authenticates clients to the
// Atlas Spark Connect server: one random secret in the Atlas home, readable
// by its owner only (mode 0600). The server creates it on first start and
// reuses it on every later start, so running notebook kernels keep working
// across restarts; the Atlas client and the kernel read it by themselves.
// It depends on the standard library only, so the thin client links no
// server code.
package authtoken

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Env names the environment variable that overrides the token file, for a
// client (or a kernel) whose Atlas home is elsewhere. The server never
// reads it: its token always lives in its home.
const Env = "ATLAS_CONNECT_TOKEN"

// FileName is the token file's name in the Atlas home.
const FileName = "connect.token"

// Path is the token file of the Atlas home.
func Path(home string) string { return filepath.Join(home, FileName) }

// Lookup returns the token a client sends: $ATLAS_CONNECT_TOKEN, else the
// content of home's token file; "" when there is neither.
func Lookup(home string) (string, error) {
	if t := strings.TrimSpace(os.Getenv(Env)); t != "" {
		return t, nil
	}
	data, err := os.ReadFile(Path(home))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the Atlas token: %w", err)
	}
	return strings.TrimSpace(string(data)), nil
}

// LoadOrCreate returns the token of home's token file, creating the file
// with a new random token (32 bytes from crypto/rand, base64url) when it
// does not exist. The file is made mode 0600 either way. Deleting the file
// and restarting the server rotates the token.
func LoadOrCreate(home string) (string, error) {
	path := Path(home)
	if err := os.MkdirAll(home, 0o755); err != nil {
		return "", fmt.Errorf("create the Atlas home %s: %w", home, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		tok, werr := write(f)
		if werr != nil {
			os.Remove(path)
			return "", fmt.Errorf("write the Atlas token %s: %w", path, werr)
		}
		return tok, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("create the Atlas token %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return "", fmt.Errorf("make the Atlas token %s private: %w", path, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read the Atlas token %s: %w", path, err)
	}
	tok := strings.TrimSpace(string(data))
	if len(tok) < 16 {
		return "", fmt.Errorf("the Atlas token %s holds %d characters, fewer than 16: delete it to get a new one", path, len(tok))
	}
	return tok, nil
}

func write(f *os.File) (string, error) {
	defer f.Close()
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	tok := base64.RawURLEncoding.EncodeToString(b[:])
	if _, err := f.WriteString(tok + "\n"); err != nil {
		return "", err
	}
	return tok, f.Sync()
}

// Tag is a short, non-reversible tag of a secret or an identifier (the
// first 8 hex digits of its SHA-256), for log lines that correlate events
// of one session without printing its id.
func Tag(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}
