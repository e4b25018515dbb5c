// kmsg_sweep: every (API, version) a broker advertises in ApiVersions, sent as franz-go's kmsg encodes that
// request with its default field values, on a raw connection. Each answer must come back on the same
// connection, decode with kmsg at that version, and re-encode to the same bytes (nothing kmsg does not
// read, nothing missing). A request the broker cannot serve closes the connection, which the report says.
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() {
	register("kmsg_sweep", kmsgSweep)
}

type sweepIn struct {
	Bootstrap string `json:"bootstrap"`
	// Skip lists API keys not to send (e.g. inter-broker requests that a default body would misuse).
	Skip []int16 `json:"skip"`
}

type rawConn struct {
	c    net.Conn
	corr int32
}

func dialRaw(addr string) (*rawConn, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return &rawConn{c: c}, nil
}

// roundTrip sends req and returns the response body (after the response header).
func (rc *rawConn) roundTrip(req kmsg.Request) ([]byte, error) {
	rc.corr++
	msg := []byte{0, 0, 0, 0}
	msg = binary.BigEndian.AppendUint16(msg, uint16(req.Key()))
	msg = binary.BigEndian.AppendUint16(msg, uint16(req.GetVersion()))
	msg = binary.BigEndian.AppendUint32(msg, uint32(rc.corr))
	clientID := "krill-kmsg-sweep"
	msg = binary.BigEndian.AppendUint16(msg, uint16(len(clientID)))
	msg = append(msg, clientID...)
	if req.IsFlexible() {
		msg = append(msg, 0) // request header v2: no tagged fields
	}
	msg = req.AppendTo(msg)
	binary.BigEndian.PutUint32(msg, uint32(len(msg)-4))
	rc.c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := rc.c.Write(msg); err != nil {
		return nil, err
	}
	var size [4]byte
	if _, err := io.ReadFull(rc.c, size[:]); err != nil {
		return nil, err
	}
	body := make([]byte, binary.BigEndian.Uint32(size[:]))
	if _, err := io.ReadFull(rc.c, body); err != nil {
		return nil, err
	}
	if len(body) < 4 {
		return nil, fmt.Errorf("response of %d bytes", len(body))
	}
	if got := int32(binary.BigEndian.Uint32(body)); got != rc.corr {
		return nil, fmt.Errorf("correlation id %d, sent %d", got, rc.corr)
	}
	body = body[4:]
	if req.IsFlexible() && req.Key() != 18 {
		if len(body) == 0 || body[0] != 0 {
			return nil, fmt.Errorf("response header v1 with tagged fields %x", body[:min(len(body), 1)])
		}
		body = body[1:]
	}
	return body, nil
}

// sweepDefaults sets the fields whose defaults would make the broker wait or act on everything.
func sweepDefaults(req kmsg.Request) {
	switch r := req.(type) {
	case *kmsg.FetchRequest:
		r.MaxWaitMillis = 0
	case *kmsg.MetadataRequest:
		r.Topics = []kmsg.MetadataRequestTopic{} // no topics, rather than all
	case *kmsg.ProduceRequest:
		r.Acks = -1 // acks=0 is answered with nothing, as Kafka does
		r.TimeoutMillis = 1000
	}
}

type sweepResult struct {
	Key     int16  `json:"key"`
	Name    string `json:"name"`
	Version int16  `json:"version"`
	Outcome string `json:"outcome"` // "ok", or what went wrong
	Error   int16  `json:"errorCode"`
}

func kmsgSweep(ctx context.Context, raw json.RawMessage) (any, error) {
	in, err := decode[sweepIn](raw)
	if err != nil {
		return nil, err
	}
	skip := map[int16]bool{}
	for _, k := range in.Skip {
		skip[k] = true
	}
	rc, err := dialRaw(in.Bootstrap)
	if err != nil {
		return nil, err
	}
	apiReq := kmsg.NewPtrApiVersionsRequest()
	apiReq.Version = 3
	apiReq.ClientSoftwareName = "krill-kmsg-sweep"
	apiReq.ClientSoftwareVersion = "1"
	body, err := rc.roundTrip(apiReq)
	if err != nil {
		return nil, fmt.Errorf("ApiVersions: %w", err)
	}
	apiResp := kmsg.NewPtrApiVersionsResponse()
	apiResp.Version = 3
	if err := apiResp.ReadFrom(body); err != nil {
		return nil, fmt.Errorf("ApiVersions response: %w", err)
	}
	keys := apiResp.ApiKeys
	sort.Slice(keys, func(i, j int) bool { return keys[i].ApiKey < keys[j].ApiKey })
	results := []sweepResult{}
	unknown := []int16{}
	for _, k := range keys {
		if skip[k.ApiKey] {
			continue
		}
		proto := kmsg.RequestForKey(k.ApiKey)
		if proto == nil {
			unknown = append(unknown, k.ApiKey)
			continue
		}
		for v := k.MinVersion; v <= k.MaxVersion; v++ {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			res := sweepResult{Key: k.ApiKey, Name: kmsg.NameForKey(k.ApiKey), Version: v, Outcome: "ok"}
			if v > proto.MaxVersion() {
				res.Outcome = fmt.Sprintf("kmsg knows up to v%d", proto.MaxVersion())
				results = append(results, res)
				continue
			}
			req := kmsg.RequestForKey(k.ApiKey)
			req.SetVersion(v)
			sweepDefaults(req)
			body, err := rc.roundTrip(req)
			if err != nil {
				res.Outcome = "no answer: " + err.Error()
				rc.c.Close()
				if rc, err = dialRaw(in.Bootstrap); err != nil {
					return nil, err
				}
				results = append(results, res)
				continue
			}
			resp := req.ResponseKind()
			resp.SetVersion(v)
			if err := resp.ReadFrom(body); err != nil {
				res.Outcome = "undecodable: " + err.Error()
			} else if again := resp.AppendTo(nil); !bytes.Equal(again, body) {
				res.Outcome = fmt.Sprintf("re-encodes to %d bytes, got %d: %x vs %x", len(again), len(body), again[:min(len(again), 64)], body[:min(len(body), 64)])
			} else if ec, ok := topErrorCode(resp); ok {
				res.Error = ec
			}
			results = append(results, res)
		}
	}
	rc.c.Close()
	return map[string]any{"results": results, "unknownToKmsg": unknown}, nil
}

// topErrorCode: the response's top-level ErrorCode when it has one.
func topErrorCode(resp kmsg.Response) (int16, bool) {
	b, err := json.Marshal(resp)
	if err != nil {
		return 0, false
	}
	var top struct {
		ErrorCode *int16
	}
	if json.Unmarshal(b, &top) != nil || top.ErrorCode == nil {
		return 0, false
	}
	return *top.ErrorCode, true
}
