//go:build unix

package checkpoint

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on f without blocking; false means
// another open file description holds it.
func tryLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// lockWait takes an exclusive flock on f, waiting for it.
func lockWait(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }
