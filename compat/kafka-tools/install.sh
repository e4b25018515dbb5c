#!/usr/bin/env bash
# Fetches Apache Kafka's command-line tools (the 4.4.0 Maven artifacts kafka_2.13 and kafka-tools, with their
# dependencies) for compat/kafka-tools/*.test.ts and writes their classpath to target/classpath.txt.
# Idempotent: a second run only re-reads the local Maven repository.
set -euo pipefail
cd "$(dirname "$0")"
# The tools of Kafka 4.x need Java 17 or newer; Maven only builds the classpath.
if ! command -v java >/dev/null || ! command -v mvn >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq default-jre-headless maven
fi
mkdir -p target
mvn -q -B dependency:build-classpath -Dmdep.outputFile=target/classpath.txt.tmp
mv target/classpath.txt.tmp target/classpath.txt
echo "kafka-tools: classpath of $(tr ':' '\n' < target/classpath.txt | wc -l) jars in compat/kafka-tools/target/classpath.txt"
