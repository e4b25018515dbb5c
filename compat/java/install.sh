#!/usr/bin/env bash
# The Java client compat suite: resolves kafka-clients 4.x (default build) and 3.x (profile kafka3) from
# Maven Central, compiles the driver against each, and writes the classpaths the tests run with:
#   target/classpath.txt   target/classes  + kafka-clients 4.x and its dependencies
#   target/classpath3.txt  target/classes3 + kafka-clients 3.x and its dependencies
# Idempotent; fails loudly.
set -euo pipefail
cd "$(dirname "$0")"

{ command -v mvn && command -v javac; } >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven openjdk-17-jdk-headless; }

mvn -q -B dependency:build-classpath -Dmdep.outputFile=target/deps4.txt
mvn -q -B -Pkafka3 dependency:build-classpath -Dmdep.outputFile=target/deps3.txt

sources=$(find src/main/java -name '*.java')
rm -rf target/classes target/classes3
# shellcheck disable=SC2086
javac --release 17 -nowarn -d target/classes -cp "$(cat target/deps4.txt)" $sources
# shellcheck disable=SC2086
javac --release 17 -nowarn -d target/classes3 -cp "$(cat target/deps3.txt)" $sources

here=$(pwd)
printf '%s:%s\n' "$here/target/classes" "$(cat target/deps4.txt)" > target/classpath.txt
printf '%s:%s\n' "$here/target/classes3" "$(cat target/deps3.txt)" > target/classpath3.txt
echo "compat/java: driver built for kafka-clients 4.x and 3.x"
