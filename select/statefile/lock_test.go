package statefile

import (
	"errors"
	"fmt"
	"os"
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
