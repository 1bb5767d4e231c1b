//go:build !unix

package checkpoint

import "os"

// tryLock is a no-op where flock is not available: the lease is not
// enforced there.
func tryLock(f *os.File) (bool, error) { return true, nil }

// lockWait is a no-op where flock is not available.
func lockWait(f *os.File) error { return nil }
