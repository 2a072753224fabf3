package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// listWriteSize bounds what an answer holds of its encoding at once.
const listWriteSize = 32 << 10

// itemsNull is how a JSON document with a nil item list spells it.
const itemsNull = `"items":null`

// WriteWithItems writes doc, the JSON encoding of a document whose "items"
// list is nil (a pod list, a snapshot message), with the items that each
// yields in place of the null: marshalled one at a time into a buffer of
// listWriteSize bytes, so that an answer holds neither a copy of the list
// nor its whole encoding, however many pods there are and however slowly
// the client reads. indent is the indentation of the items' field in doc
// ("" for compact JSON); the output is then byte for byte what
// json.Encoder writes for the whole document with SetIndent("", "  ").
// before runs before every write to w (to extend a write deadline).
func WriteWithItems[T any](w io.Writer, before func(), doc []byte, indent string, each func(yield func(T) error) error) error {
	marker := []byte(itemsNull)
	if indent != "" {
		marker = []byte(`"items": null`)
	}
	at := bytes.LastIndex(doc, marker)
	if at < 0 {
		return fmt.Errorf("encoding a list: %.60q has no %s", doc, marker)
	}
	bw := bufio.NewWriterSize(writerFunc(func(p []byte) (int, error) {
		before()
		return w.Write(p)
	}), listWriteSize)
	_, _ = bw.Write(doc[:at+len(marker)-len("null")])
	itemIndent := indent + "  "
	n := 0
	err := each(func(item T) error {
		var b []byte
		var err error
		if indent == "" {
			b, err = json.Marshal(item)
		} else {
			b, err = json.MarshalIndent(item, itemIndent, "  ")
		}
		if err != nil {
			return fmt.Errorf("encoding item %d of a list: %w", n, err)
		}
		switch {
		case n == 0 && indent == "":
			_ = bw.WriteByte('[')
		case n == 0:
			_, _ = bw.WriteString("[\n" + itemIndent)
		case indent == "":
			_ = bw.WriteByte(',')
		default:
			_, _ = bw.WriteString(",\n" + itemIndent)
		}
		n++
		_, err = bw.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	switch {
	case n == 0:
		_, _ = bw.WriteString("[]")
	case indent == "":
		_ = bw.WriteByte(']')
	default:
		_, _ = bw.WriteString("\n" + indent + "]")
	}
	_, _ = bw.Write(doc[at+len(marker):])
	return bw.Flush()
}

// writerFunc is an io.Writer made of a function.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
