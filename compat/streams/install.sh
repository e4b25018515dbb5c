#!/usr/bin/env bash
# The Kafka Streams compat suite: resolves kafka-streams and kafka-tools (StreamsResetter) 4.4.0 from Maven
# Central, compiles the driver, and writes target/classpath.txt (target/classes + the dependencies).
# Idempotent; fails loudly.
set -euo pipefail
cd "$(dirname "$0")"

{ command -v mvn && command -v javac; } >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven openjdk-17-jdk-headless; }

mvn -q -B dependency:build-classpath -Dmdep.outputFile=target/deps.txt

sources=$(find src/main/java -name '*.java')
rm -rf target/classes
# shellcheck disable=SC2086
javac --release 17 -nowarn -d target/classes -cp "$(cat target/deps.txt)" $sources

printf '%s:%s\n' "$(pwd)/target/classes" "$(cat target/deps.txt)" > target/classpath.txt
echo "compat/streams: driver built for kafka-streams 4.4.0"
