package webhook

import (
	"encoding/json"
	"io"
)

func io_NopCloser(r io.Reader) io.ReadCloser { return io.NopCloser(r) }

func jsonMarshal(v any) ([]byte, error)   { return json.Marshal(v) }
func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
