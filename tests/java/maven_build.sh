#!/usr/bin/env bash
# java/pom.xml builds the jar offline from Debian's packaged Maven plugins, with the project's
# version, and the jar holds every class of org.tvk that CMake's jar holds.
# usage: maven_build.sh SOURCE_ROOT WORK_DIR PROJECT_VERSION CMAKE_JAR
set -euo pipefail
root=$1 work=$2 version=$3 cmake_jar=$4
grep -q "<version>$version</version>" "$root/java/pom.xml" || { echo "java/pom.xml's version is not $version" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
cp -r "$root/java/pom.xml" "$root/java/src" "$work/"
mvn -o -q -Dmaven.repo.local=/usr/share/maven-repo -f "$work/pom.xml" package
jar="$work/target/tvk-$version.jar"
diff <(unzip -Z1 "$cmake_jar" | grep '\.class$' | sort) <(unzip -Z1 "$jar" | grep '\.class$' | sort)
echo "built $jar"
