package krill.compat.spring;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/** JSON lines on stdout (a small writer: the app needs no JSON library). */
final class Out {
  private Out() {}

  static synchronized void line(Map<String, ?> m) {
    System.out.println(json(m));
    System.out.flush();
  }

  static void error(String scenario, Throwable t) {
    StringWriter sw = new StringWriter();
    t.printStackTrace(new PrintWriter(sw));
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("scenario", scenario);
    m.put("exception", t.toString());
    m.put("trace", sw.toString());
    line(m);
  }

  /** The headers Spring writes as binary numbers (partition, attempts, offset, timestamps) are decoded; others are UTF-8. */
  static List<List<Object>> headers(ConsumerRecord<?, ?> r) {
    List<List<Object>> out = new ArrayList<>();
    for (Header h : r.headers()) {
      byte[] v = h.value();
      Object value;
      if (v == null) value = null;
      else if ((h.key().endsWith("-partition") || h.key().endsWith("-attempts")) && v.length == 4) value = ByteBuffer.wrap(v).getInt();
      else if ((h.key().endsWith("-offset") || h.key().endsWith("-timestamp")) && v.length == 8) value = ByteBuffer.wrap(v).getLong();
      else if (h.key().endsWith("exception-stacktrace")) value = "(" + v.length + " bytes)";
      else value = new String(v, StandardCharsets.UTF_8);
      out.add(List.of(h.key(), value == null ? "null" : value));
    }
    return out;
  }

  static Map<String, Object> record(ConsumerRecord<String, String> r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("topic", r.topic());
    m.put("partition", r.partition());
    m.put("offset", r.offset());
    m.put("key", r.key());
    m.put("value", r.value());
    m.put("headers", headers(r));
    return m;
  }

  static String json(Object o) {
    StringBuilder sb = new StringBuilder();
    write(sb, o);
    return sb.toString();
  }

  private static void write(StringBuilder sb, Object o) {
    if (o == null) {
      sb.append("null");
    } else if (o instanceof Map<?, ?> m) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!first) sb.append(',');
        first = false;
        write(sb, String.valueOf(e.getKey()));
        sb.append(':');
        write(sb, e.getValue());
      }
      sb.append('}');
    } else if (o instanceof Iterable<?> it) {
      sb.append('[');
      boolean first = true;
      for (Object x : it) {
        if (!first) sb.append(',');
        first = false;
        write(sb, x);
      }
      sb.append(']');
    } else if (o instanceof Number || o instanceof Boolean) {
      sb.append(o);
    } else {
      String s = o.toString();
      sb.append('"');
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if (c == '"' || c == '\\') sb.append('\\').append(c);
        else if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
        else sb.append(c);
      }
      sb.append('"');
    }
  }
}
