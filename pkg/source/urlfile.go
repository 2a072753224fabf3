package source

import (
	"fmt"
	"io"
	"strings"
)

// maxURLFile bounds the files of --static-pod-url-file and
// --static-pod-url-header-file.
const maxURLFile = 64 << 10

// readURLFiles sets the static pod URL and its headers from the files
// their flags name, when given; each refuses its plain flag beside it.
// Errors never quote what the files hold.
func (f *Flags) readURLFiles(changed func(string) bool, cfg *Config) error {
	for _, pair := range [][2]string{{FlagStaticPodURLFile, FlagStaticPodURL}, {FlagStaticPodURLHeaderFile, FlagStaticPodURLHeader}} {
		if changed(pair[0]) && changed(pair[1]) {
			return fmt.Errorf("--%s and --%s: give one of them", pair[0], pair[1])
		}
	}
	if changed(FlagStaticPodURLFile) {
		b, err := readSmallFile(FlagStaticPodURLFile, f.StaticPodURLFile)
		if err != nil {
			return err
		}
		cfg.StaticPodURL = strings.TrimSpace(b)
	}
	if changed(FlagStaticPodURLHeaderFile) {
		b, err := readSmallFile(FlagStaticPodURLHeaderFile, f.StaticPodURLHeaderFile)
		if err != nil {
			return err
		}
		var lines []string
		for _, l := range strings.Split(b, "\n") {
			if strings.TrimSpace(l) != "" {
				lines = append(lines, l)
			}
		}
		h, err := parseHeaders(FlagStaticPodURLHeaderFile, lines)
		if err != nil {
			return err
		}
		cfg.StaticPodURLHeader = h
	}
	return nil
}

// readSmallFile reads the regular file of flag, at most maxURLFile bytes,
// opened as a manifest is (openManifest): never blocking on a FIFO or a
// device.
func readSmallFile(flag, name string) (string, error) {
	f, err := openManifest(name, name)
	if err != nil {
		return "", fmt.Errorf("--%s: %w", flag, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxURLFile+1))
	if err != nil {
		return "", fmt.Errorf("reading --%s: %w", flag, err)
	}
	if len(b) > maxURLFile {
		return "", fmt.Errorf("reading --%s %s: larger than %d KiB", flag, name, maxURLFile>>10)
	}
	return string(b), nil
}
