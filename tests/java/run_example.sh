#!/usr/bin/env bash
# java/examples/Example.java as a user runs it: compiled against tvk.jar, run with the jar on the
# class path and no JVM flags (no -Djava.library.path, no TVK_JNI_LIBRARY): libtvk_jni is found
# beside the jar. Checks mobilenet_v2's output against PyTorch's.
# Usage: run_example.sh JAVAC JAVA TVK_JAR EXAMPLE_SOURCE FIXTURES_DIR WORK_DIR
set -euo pipefail
javac=$1 java=$2 jar=$3 source=$4 fixtures=$5 work=$6
rm -rf "$work" && mkdir -p "$work"
"$javac" -Xlint:all -Werror -cp "$jar" -d "$work" "$source"
unset TVK_JNI_LIBRARY
out=$(cd "$work" && "$java" -Xcheck:jni -cp "$jar:." Example "$fixtures/mobilenet2-vulkan.pt" "$fixtures/x.bin" \
      "$fixtures/y_torch.bin")
echo "$out"
grep -q "^ran on " <<<"$out"
grep -q "^max |java - pytorch|" <<<"$out"
