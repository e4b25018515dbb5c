#!/usr/bin/env bash
# The Spring for Apache Kafka compat suite: resolves Spring Boot 4 (spring-boot-starter-kafka, with the
# spring-kafka and kafka-clients versions Boot's BOM pins) from Maven Central, packages the app, and writes
# target/classpath.txt (target/classes + every dependency) that the tests run it with.
# Idempotent; fails loudly.
set -euo pipefail
cd "$(dirname "$0")"

{ command -v mvn && command -v javac; } >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven openjdk-17-jdk-headless; }

mvn -q -B dependency:resolve dependency:build-classpath -Dmdep.outputFile=target/deps.txt
mvn -q -B package -DskipTests
printf '%s:%s\n' "$(pwd)/target/classes" "$(cat target/deps.txt)" > target/classpath.txt
echo "compat/spring: app built (target/spring-compat.jar, target/classpath.txt)"
