package statefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// LockName is the lock file every writer of a state directory holds for its
// whole read-allocate-write.
const LockName = "sift.lock"

// Lock is an exclusive hold on a state directory.
type Lock struct {
	f *os.File
	// Removed lists the temporary files of dead writers that taking the
	// lock deleted.
	Removed []string
}

// ErrLockTimeout reports that another process held the lock past the wait.
var ErrLockTimeout = errors.New("state directory is locked")

// AcquireLock takes the exclusive lock of dir (creating dir if needed),
// waiting up to timeout, and deletes the temporary files dead writers left
// there. On timeout the error names the lock file and, when
// it recorded one, the holder's pid.
func AcquireLock(dir string, timeout time.Duration) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("state lock: %w", err)
	}
	p := filepath.Join(dir, LockName)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("state lock: %w", err)
	}
	deadline := time.Now().Add(timeout)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("state lock %s: %w", p, err)
		}
		if time.Now().After(deadline) {
			holder := ""
			if b, err := os.ReadFile(p); err == nil {
				if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
					holder = fmt.Sprintf(" by pid %d", pid)
				}
			}
			f.Close()
			return nil, fmt.Errorf("%w: %s held%s for more than %s", ErrLockTimeout, p, holder, timeout)
		}
		time.Sleep(wait)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	l := &Lock{f: f}
	l.Removed, err = removeStaleTemps(dir)
	if err != nil {
		l.Release()
		return nil, err
	}
	return l, nil
}

// removeStaleTemps deletes the temporary files of writers that died before
// renaming them. Every writer holds the lock while its temporary file
// exists, so whoever holds it now knows any such file is a dead writer's.
func removeStaleTemps(dir string) ([]string, error) {
	stale, err := filepath.Glob(filepath.Join(dir, "*"+tempInfix+"*"))
	if err != nil {
		return nil, fmt.Errorf("state lock: %w", err)
	}
	for _, p := range stale {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("state lock: removing a dead writer's temporary file: %w", err)
		}
	}
	return stale, nil
}

// Release gives the lock up.
func (l *Lock) Release() error { return l.f.Close() }
