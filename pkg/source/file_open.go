package source

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// openManifest opens a manifest for reading, whatever sits at the path,
// without blocking: the open does not wait for a FIFO's writer or a
// device, and the type is checked on the opened file, so a file swapped
// after a listing's stat is caught too. A directory yields EISDIR, as a
// read of it would; anything else that is not a regular file yields an
// error naming the file and its type.
func openManifest(read, host string) (*os.File, error) {
	f, err := os.OpenFile(read, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, fmt.Errorf("reading manifest %s: %w", host, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("reading manifest %s: %w", host, err)
	}
	switch mode := info.Mode(); {
	case mode.IsRegular():
		return f, nil
	case mode.IsDir():
		f.Close()
		return nil, fmt.Errorf("reading manifest %s: %w", host, syscall.EISDIR)
	default:
		f.Close()
		return nil, notRegular(host, mode)
	}
}

// notRegular is the error for a manifest path that is neither a regular
// file nor a directory.
func notRegular(host string, mode fs.FileMode) error {
	return fmt.Errorf("manifest %s is %s, not a regular file: skipped", host, fileKind(mode))
}

// fileKind names the type of a file for an error message.
func fileKind(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	case mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	case mode.IsDir():
		return "a directory"
	default:
		return "an irregular file (" + mode.Type().String() + ")"
	}
}
