package statefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSecondLockerTimesOutNamingTheLockAndHolder(t *testing.T) {
	dir := t.TempDir()
	l, err := AcquireLock(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = AcquireLock(dir, 0)
	if !errors.Is(err, ErrLockTimeout) || !strings.Contains(err.Error(), LockName) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("second lock: %v; want a timeout naming %s and pid %d", err, LockName, os.Getpid())
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	l, err = AcquireLock(dir, 0)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	l.Release()
}

func TestLockRemovesDeadWritersTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	f := &File{Dir: dir, Name: "select_linear.state"}
	if err := f.Save("linear", 1, []byte("good")); err != nil {
		t.Fatal(err)
	}
	// A writer killed between creating its temporary file and renaming it.
	dead := filepath.Join(dir, "select_linear.state"+tempInfix+"12345")
	if err := os.WriteFile(dead, []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := AcquireLock(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if _, err := os.Stat(dead); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("dead writer's %s still there: %v", dead, err)
	}
	if len(l.Removed) != 1 || l.Removed[0] != dead {
		t.Fatalf("Removed = %q, want [%s]", l.Removed, dead)
	}
	if got, _, err := f.Load("linear"); err != nil || string(got) != "good" {
		t.Fatalf("state after cleanup: %q %v", got, err)
	}
}
