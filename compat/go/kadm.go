// kadm scenarios: topics, partitions, configs, records and offsets, groups and their lag, log dirs, the
// cluster, transactions and producers. Each step's outcome (or its error) is one field of the report, so a
// failing step names itself and the others still run.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func init() {
	register("kadm_topics", kadmTopics)
	register("kadm_groups", kadmGroups)
	register("kadm_cluster", kadmCluster)
}

type kadmIn struct {
	Bootstrap string `json:"bootstrap"`
	Prefix    string `json:"prefix"`
	Group     string `json:"group"`
	TxnID     string `json:"txnId"`
}

type report map[string]any

func (r report) step(name string, fn func() (any, error)) {
	v, err := fn()
	if err != nil {
		r[name] = map[string]string{"error": err.Error()}
		return
	}
	r[name] = v
}

func adminClient(bootstrap string, opts ...kgo.Opt) (*kgo.Client, *kadm.Client, error) {
	cl, err := newClient(bootstrap, opts...)
	if err != nil {
		return nil, nil, err
	}
	return cl, kadm.NewClient(cl), nil
}

func partitionCounts(td kadm.TopicDetails) map[string]any {
	out := map[string]any{}
	for name, t := range td {
		if t.Err != nil {
			out[name] = map[string]string{"error": t.Err.Error()}
			continue
		}
		leaders := map[string]int32{}
		for p, d := range t.Partitions {
			leaders[fmt.Sprint(p)] = d.Leader
		}
		out[name] = map[string]any{"partitions": len(t.Partitions), "leaders": leaders, "hasId": t.ID != kadm.TopicID{}}
	}
	return out
}

func offsetsOf(lo kadm.ListedOffsets) map[string]any {
	out := map[string]any{}
	lo.Each(func(o kadm.ListedOffset) {
		k := fmt.Sprintf("%s/%d", o.Topic, o.Partition)
		if o.Err != nil {
			out[k] = map[string]string{"error": o.Err.Error()}
			return
		}
		out[k] = map[string]int64{"offset": o.Offset, "timestamp": o.Timestamp}
	})
	return out
}

func configsOf(rc kadm.ResourceConfigs, keys ...string) (map[string]any, error) {
	out := map[string]any{}
	for _, r := range rc {
		if r.Err != nil {
			return nil, fmt.Errorf("%s: %w", r.Name, r.Err)
		}
		for _, c := range r.Configs {
			for _, k := range keys {
				if c.Key == k {
					out[k] = map[string]any{"value": c.Value, "source": c.Source.String()}
				}
			}
		}
	}
	return out, nil
}

// kadmTopics: create two topics (one with a config), list them, add partitions, describe and alter configs,
// produce timestamped records, list start/end/by-time offsets, delete records, delete the topics.
func kadmTopics(ctx context.Context, raw json.RawMessage) (any, error) {
	in, err := decode[kadmIn](raw)
	if err != nil {
		return nil, err
	}
	cl, adm, err := adminClient(in.Bootstrap, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	t1, t2 := in.Prefix+"-a", in.Prefix+"-b"
	r := report{}
	r.step("create", func() (any, error) {
		out := map[string]any{}
		res, err := adm.CreateTopics(ctx, 2, 1, map[string]*string{"retention.ms": str("3600000")}, t1, t2)
		if err != nil {
			return nil, err
		}
		for _, t := range res {
			out[t.Topic] = map[string]any{"error": stepErr(t.Err), "partitions": t.NumPartitions, "rf": t.ReplicationFactor, "hasId": t.ID != kadm.TopicID{}}
		}
		dup, err := adm.CreateTopics(ctx, 2, 1, nil, t1)
		if err != nil {
			return nil, err
		}
		out["again"] = stepErr(dup[t1].Err)
		return out, nil
	})
	r.step("list", func() (any, error) {
		td, err := adm.ListTopics(ctx, t1, t2)
		if err != nil {
			return nil, err
		}
		all, err := adm.ListTopics(ctx)
		if err != nil {
			return nil, err
		}
		return map[string]any{"topics": partitionCounts(td), "allHasBoth": all.Has(t1) && all.Has(t2)}, nil
	})
	r.step("createPartitions", func() (any, error) {
		res, err := adm.CreatePartitions(ctx, 3, t1)
		if err != nil {
			return nil, err
		}
		td, err := adm.ListTopics(ctx, t1)
		if err != nil {
			return nil, err
		}
		return map[string]any{"error": stepErr(res[t1].Err), "after": len(td[t1].Partitions)}, nil
	})
	r.step("describeConfigs", func() (any, error) {
		rc, err := adm.DescribeTopicConfigs(ctx, t1)
		if err != nil {
			return nil, err
		}
		return configsOf(rc, "retention.ms", "cleanup.policy", "segment.bytes")
	})
	r.step("alterConfigs", func() (any, error) {
		res, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{
			{Op: kadm.SetConfig, Name: "cleanup.policy", Value: str("compact")},
			{Op: kadm.DeleteConfig, Name: "retention.ms"},
		}, t1)
		if err != nil {
			return nil, err
		}
		errs := []string{}
		for _, a := range res {
			errs = append(errs, stepErr(a.Err))
		}
		rc, err := adm.DescribeTopicConfigs(ctx, t1)
		if err != nil {
			return nil, err
		}
		after, err := configsOf(rc, "retention.ms", "cleanup.policy")
		return map[string]any{"errors": errs, "after": after}, err
	})
	base := time.Now().Add(-time.Hour).Truncate(time.Second).UnixMilli()
	r.step("produce", func() (any, error) {
		recs := []*kgo.Record{}
		for i := 0; i < 10; i++ {
			recs = append(recs, &kgo.Record{Topic: t2, Partition: 0, Value: []byte(fmt.Sprintf("r%d", i)), Timestamp: time.UnixMilli(base + int64(i)*1000)})
		}
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			return nil, err
		}
		return map[string]int64{"base": base}, nil
	})
	r.step("listOffsets", func() (any, error) {
		start, err := adm.ListStartOffsets(ctx, t2)
		if err != nil {
			return nil, err
		}
		end, err := adm.ListEndOffsets(ctx, t2)
		if err != nil {
			return nil, err
		}
		at, err := adm.ListOffsetsAfterMilli(ctx, base+4500, t2)
		if err != nil {
			return nil, err
		}
		after, err := adm.ListOffsetsAfterMilli(ctx, base+60_000, t2)
		if err != nil {
			return nil, err
		}
		max, err := adm.ListMaxTimestampOffsets(ctx, t2)
		if err != nil {
			return nil, err
		}
		return map[string]any{"start": offsetsOf(start), "end": offsetsOf(end), "byTime": offsetsOf(at), "afterLast": offsetsOf(after), "maxTimestamp": offsetsOf(max)}, nil
	})
	r.step("deleteRecords", func() (any, error) {
		os := kadm.Offsets{}
		os.Add(kadm.Offset{Topic: t2, Partition: 0, At: 4})
		res, err := adm.DeleteRecords(ctx, os)
		if err != nil {
			return nil, err
		}
		d, _ := res.Lookup(t2, 0)
		start, err := adm.ListStartOffsets(ctx, t2)
		if err != nil {
			return nil, err
		}
		return map[string]any{"error": stepErr(d.Err), "lowWatermark": d.LowWatermark, "start": offsetsOf(start)}, nil
	})
	r.step("delete", func() (any, error) {
		res, err := adm.DeleteTopics(ctx, t1, t2)
		if err != nil {
			return nil, err
		}
		errs := map[string]string{}
		for _, d := range res {
			errs[d.Topic] = stepErr(d.Err)
		}
		var left []string
		err = waitFor(ctx, "deleted topics to leave the metadata", 20*time.Second, func() bool {
			td, err := adm.ListTopics(ctx)
			if err != nil {
				return false
			}
			left = nil
			for _, t := range []string{t1, t2} {
				if td.Has(t) {
					left = append(left, t)
				}
			}
			return len(left) == 0
		})
		return map[string]any{"errors": errs, "left": left, "wait": stepErr(err)}, nil
	})
	return r, nil
}

// kadmGroups: a kgo group member consumes part of a topic and commits; the group is listed, described and
// its lag computed while the member is live; then with the group empty its offsets are committed, fetched,
// deleted, and the group is deleted.
func kadmGroups(ctx context.Context, raw json.RawMessage) (any, error) {
	in, err := decode[kadmIn](raw)
	if err != nil {
		return nil, err
	}
	topic := in.Prefix + "-g"
	if err := createTopic(ctx, in.Bootstrap, topic, 2, 1); err != nil {
		return nil, err
	}
	cl, adm, err := adminClient(in.Bootstrap, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	recs := []*kgo.Record{}
	for i := 0; i < 10; i++ {
		recs = append(recs, &kgo.Record{Topic: topic, Partition: int32(i % 2), Value: []byte(fmt.Sprintf("g%d", i))})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return nil, err
	}
	m, err := startMember(ctx, "m", in.Bootstrap, in.Group, topic)
	if err != nil {
		return nil, err
	}
	if err := waitFor(ctx, "the member to consume 10 records", 30*time.Second, func() bool { return m.count() >= 10 }); err != nil {
		return nil, err
	}
	if err := m.cl.CommitUncommittedOffsets(ctx); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	// Two more records after the commit: the lag is 1 on each partition.
	more := []*kgo.Record{{Topic: topic, Partition: 0, Value: []byte("late0")}, {Topic: topic, Partition: 1, Value: []byte("late1")}}
	m.stop()
	<-m.done
	if err := cl.ProduceSync(ctx, more...).FirstErr(); err != nil {
		return nil, err
	}
	r := report{}
	r.step("list", func() (any, error) {
		lg, err := adm.ListGroups(ctx)
		if err != nil {
			return nil, err
		}
		g, ok := lg[in.Group]
		return map[string]any{"found": ok, "state": g.State, "protocolType": g.ProtocolType}, nil
	})
	r.step("listFiltered", func() (any, error) {
		stable, err := adm.ListGroups(ctx, "Stable")
		if err != nil {
			return nil, err
		}
		empty, err := adm.ListGroups(ctx, "Empty")
		if err != nil {
			return nil, err
		}
		classic, err := adm.ListGroupsByType(ctx, []string{"classic"})
		if err != nil {
			return nil, err
		}
		consumer, err := adm.ListGroupsByType(ctx, []string{"consumer"})
		if err != nil {
			return nil, err
		}
		_, inStable := stable[in.Group]
		_, inEmpty := empty[in.Group]
		_, inConsumer := consumer[in.Group]
		return map[string]any{"stable": inStable, "empty": inEmpty, "classic": classic[in.Group].GroupType, "consumerType": inConsumer}, nil
	})
	r.step("describe", func() (any, error) {
		dg, err := adm.DescribeGroups(ctx, in.Group)
		if err != nil {
			return nil, err
		}
		g := dg[in.Group]
		members := []map[string]any{}
		for _, mem := range g.Members {
			assigned := map[string][]int32{}
			if c, ok := mem.Assigned.AsConsumer(); ok {
				for _, t := range c.Topics {
					ps := append([]int32{}, t.Partitions...)
					sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
					assigned[t.Topic] = ps
				}
			}
			members = append(members, map[string]any{"clientId": mem.ClientID, "assigned": assigned, "hasMemberId": mem.MemberID != ""})
		}
		return map[string]any{"error": stepErr(g.Err), "state": g.State, "protocolType": g.ProtocolType, "protocol": g.Protocol, "members": members}, nil
	})
	r.step("lag", func() (any, error) {
		lags, err := adm.Lag(ctx, in.Group)
		if err != nil {
			return nil, err
		}
		l := lags[in.Group]
		out := map[string]any{}
		for _, ps := range l.Lag {
			for p, ml := range ps {
				out[fmt.Sprint(p)] = map[string]any{"commit": ml.Commit.At, "end": ml.End.Offset, "lag": ml.Lag, "error": stepErr(ml.Err)}
			}
		}
		return map[string]any{"error": stepErr(l.Error()), "partitions": out, "total": l.Lag.Total()}, nil
	})
	m.cl.Close()
	r.step("describeEmpty", func() (any, error) {
		var state string
		err := waitFor(ctx, "the group to be empty after its member left", 20*time.Second, func() bool {
			dg, err := adm.DescribeGroups(ctx, in.Group)
			if err != nil {
				return false
			}
			state = dg[in.Group].State
			return state == "Empty"
		})
		return map[string]any{"state": state, "wait": stepErr(err)}, nil
	})
	r.step("commit", func() (any, error) {
		os := kadm.Offsets{}
		os.Add(kadm.Offset{Topic: topic, Partition: 0, At: 3, LeaderEpoch: -1, Metadata: "by kadm"})
		os.Add(kadm.Offset{Topic: topic, Partition: 1, At: 4, LeaderEpoch: -1})
		res, err := adm.CommitOffsets(ctx, in.Group, os)
		if err != nil {
			return nil, err
		}
		return map[string]any{"error": stepErr(res.Error())}, nil
	})
	r.step("fetch", func() (any, error) {
		res, err := adm.FetchOffsets(ctx, in.Group)
		if err != nil {
			return nil, err
		}
		out := map[string]any{}
		res.Each(func(o kadm.OffsetResponse) {
			out[fmt.Sprint(o.Partition)] = map[string]any{"at": o.At, "metadata": o.Metadata, "error": stepErr(o.Err)}
		})
		return out, nil
	})
	r.step("fetchMany", func() (any, error) {
		res := adm.FetchManyOffsets(ctx, in.Group, in.Group+"-none")
		out := map[string]any{}
		for g, fr := range res {
			ats := map[string]int64{}
			fr.Fetched.Each(func(o kadm.OffsetResponse) { ats[fmt.Sprint(o.Partition)] = o.At })
			out[g] = map[string]any{"error": stepErr(fr.Err), "offsets": ats}
		}
		return out, nil
	})
	r.step("deleteOffsets", func() (any, error) {
		s := kadm.TopicsSet{}
		s.Add(topic, 0)
		res, err := adm.DeleteOffsets(ctx, in.Group, s)
		if err != nil {
			return nil, err
		}
		after, err := adm.FetchOffsets(ctx, in.Group)
		if err != nil {
			return nil, err
		}
		left := []int32{}
		after.Each(func(o kadm.OffsetResponse) {
			if o.At >= 0 {
				left = append(left, o.Partition)
			}
		})
		return map[string]any{"error": stepErr(res.Error()), "left": left}, nil
	})
	r.step("deleteGroup", func() (any, error) {
		res, err := adm.DeleteGroup(ctx, in.Group)
		if err != nil {
			return nil, err
		}
		lg, err := adm.ListGroups(ctx)
		if err != nil {
			return nil, err
		}
		_, still := lg[in.Group]
		return map[string]any{"error": stepErr(res.Err), "stillListed": still}, nil
	})
	return r, nil
}

// kadmCluster: broker metadata, log dirs, and a transaction seen through ListTransactions,
// DescribeTransactions and DescribeProducers while it is open, then after its commit.
func kadmCluster(ctx context.Context, raw json.RawMessage) (any, error) {
	in, err := decode[kadmIn](raw)
	if err != nil {
		return nil, err
	}
	topic := in.Prefix + "-c"
	if err := createTopic(ctx, in.Bootstrap, topic, 1, 1); err != nil {
		return nil, err
	}
	cl, adm, err := adminClient(in.Bootstrap)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	r := report{}
	r.step("metadata", func() (any, error) {
		md, err := adm.BrokerMetadata(ctx)
		if err != nil {
			return nil, err
		}
		brokers := []map[string]any{}
		for _, b := range md.Brokers {
			brokers = append(brokers, map[string]any{"id": b.NodeID, "host": b.Host, "port": b.Port})
		}
		return map[string]any{"cluster": md.Cluster, "controller": md.Controller, "brokers": brokers}, nil
	})
	txn, err := newClient(in.Bootstrap, kgo.TransactionalID(in.TxnID), kgo.DefaultProduceTopic(topic))
	if err != nil {
		return nil, err
	}
	defer txn.Close()
	if err := txn.BeginTransaction(); err != nil {
		return nil, err
	}
	if err := txn.ProduceSync(ctx, &kgo.Record{Value: []byte("t0")}, &kgo.Record{Value: []byte("t1")}).FirstErr(); err != nil {
		return nil, fmt.Errorf("produce in transaction: %w", err)
	}
	r.step("brokerConfigs", func() (any, error) {
		rc, err := adm.DescribeBrokerConfigs(ctx, 1)
		if err != nil {
			return nil, err
		}
		return configsOf(rc, "log.retention.hours", "num.partitions", "auto.create.topics.enable")
	})
	r.step("brokerLogDirs", func() (any, error) {
		s := kadm.TopicsSet{}
		s.Add(topic, 0)
		dirs, err := adm.DescribeBrokerLogDirs(ctx, 1, s)
		if err != nil {
			return nil, err
		}
		out := []map[string]any{}
		dirs.Each(func(d kadm.DescribedLogDir) {
			_, ok := d.Topics.Lookup(topic, 0)
			out = append(out, map[string]any{"dir": d.Dir, "error": stepErr(d.Err), "hasPartition": ok})
		})
		return out, nil
	})
	r.step("logDirs", func() (any, error) {
		s := kadm.TopicsSet{}
		s.Add(topic, 0)
		all, err := adm.DescribeAllLogDirs(ctx, s)
		if err != nil {
			return nil, err
		}
		out := []map[string]any{}
		all.Each(func(d kadm.DescribedLogDir) {
			p, _ := d.Topics.Lookup(topic, 0)
			out = append(out, map[string]any{"broker": d.Broker, "dir": d.Dir, "error": stepErr(d.Err), "size": p.Size, "total": d.TotalBytes, "usable": d.UsableBytes})
		})
		return out, nil
	})
	describeTxn := func() (any, error) {
		dt, err := adm.DescribeTransactions(ctx, in.TxnID)
		if err != nil {
			return nil, err
		}
		d := dt[in.TxnID]
		parts := map[string][]int32{}
		for t, ps := range d.Topics {
			for p := range ps {
				parts[t] = append(parts[t], p)
			}
		}
		return map[string]any{"error": stepErr(d.Err), "state": d.State, "producerId": d.ProducerID, "epoch": d.ProducerEpoch, "timeoutMs": d.TimeoutMillis, "topics": parts}, nil
	}
	listTxn := func() (any, error) {
		lt, err := adm.ListTransactions(ctx, nil, nil)
		if err != nil {
			return nil, err
		}
		t, ok := lt[in.TxnID]
		return map[string]any{"found": ok, "state": t.State, "producerId": t.ProducerID}, nil
	}
	r.step("listTxnFiltered", func() (any, error) {
		ongoing, err := adm.ListTransactions(ctx, nil, []string{"Ongoing"})
		if err != nil {
			return nil, err
		}
		committed, err := adm.ListTransactions(ctx, nil, []string{"CompleteCommit"})
		if err != nil {
			return nil, err
		}
		_, inOngoing := ongoing[in.TxnID]
		_, inCommitted := committed[in.TxnID]
		return map[string]any{"ongoing": inOngoing, "completeCommit": inCommitted}, nil
	})
	r.step("describeTxnOpen", describeTxn)
	r.step("listTxnOpen", listTxn)
	r.step("producersOpen", func() (any, error) {
		s := kadm.TopicsSet{}
		s.Add(topic, 0)
		dp, err := adm.DescribeProducers(ctx, s)
		if err != nil {
			return nil, err
		}
		out := []map[string]any{}
		for _, p := range dp.SortedPartitions() {
			for _, a := range p.ActiveProducers.Sorted() {
				out = append(out, map[string]any{"partition": p.Partition, "producerId": a.ProducerID, "epoch": a.ProducerEpoch, "lastSequence": a.LastSequence, "txnStart": a.CurrentTxnStartOffset})
			}
			if p.Err != nil {
				out = append(out, map[string]any{"partition": p.Partition, "error": p.Err.Error()})
			}
		}
		return out, nil
	})
	if err := txn.EndTransaction(ctx, kgo.TryCommit); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	r.step("describeTxnCommitted", func() (any, error) {
		var last any
		err := waitFor(ctx, "the transaction to complete", 20*time.Second, func() bool {
			v, err := describeTxn()
			if err != nil {
				return false
			}
			last = v
			return v.(map[string]any)["state"] == "CompleteCommit"
		})
		if err != nil {
			return nil, fmt.Errorf("%w (last: %v)", err, last)
		}
		return last, nil
	})
	r.step("listTxnCommitted", listTxn)
	return r, nil
}
