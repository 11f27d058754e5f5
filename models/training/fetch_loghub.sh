#!/usr/bin/env bash
# Fetches the nine labelled loghub-2k sets the shipped weights were trained on,
# for users who want to reproduce models/denoiser-v2.pt and models/encoder-v1.pt
# (nothing else in the repository needs them: the tests and smoke runs use
# models/tuning). Needs network access to raw.githubusercontent.com.
#
#   bash models/training/fetch_loghub.sh DIR
#   LOGSIFT_LOGHUB=DIR /usr/bin/python3 models/training/denoiser/train.py --out /tmp/d.pt
#
# Sources, pinned: the raw 2k samples from logpai/loghub and the corrected
# labels from logpai/logparser (data/loghub_2k_corrected). Each file is checked
# against the SHA-256 of the copy the shipped weights were trained on; a
# mismatch stops with the file's name, so a changed upstream never trains
# silently. The data's licence and citation: https://github.com/logpai/loghub
# (research use; cite loghub).
set -euo pipefail
out="${1:?usage: fetch_loghub.sh DIR}"
loghub=https://raw.githubusercontent.com/logpai/loghub/69c542da2c5824d586d3878ffbc7ad4be37f9675
labels=https://raw.githubusercontent.com/logpai/logparser/c82e5481b5a30c56d1bb6a6c332343645178c688/data/loghub_2k_corrected

sums="
47641549915e662ff590291df266a45f635eedca7c5f1b41a4fa853fe5d2f409  Android/Android_2k.log
0e51c532c9b82b49234f5691ed96d7b584eaeef9f35839b9c365769a80294705  Apache/Apache_2k.log
5adca4dadb7cf162bf220e4f0605faa2fdcfd8645c7547d2cf312dac3d42fee7  BGL/BGL_2k.log
6fe25449e79d75e35bb223ead9729fa02c00b7abb23e4e8ec0f3bb2addec6e3a  HDFS/HDFS_2k.log
dc0e343fc230bce6fd8be4c0cbb05cfaecdaf5fdcf88e029b584f0346fb60312  Hadoop/Hadoop_2k.log
c789354388e68bdca45c1db1c77c778a81e692ba2b9d939f4edc05bef6545758  Mac/Mac_2k.log
16da02f37eb00cec9ec65c4d71175897be45b266aa7d6e01b26186678e2288b8  OpenSSH/OpenSSH_2k.log
87e9715f97f193135d807226b0949c129035df0842cc141f48332fa712eaf81b  Spark/Spark_2k.log
ca38c8b373c693760a86dea60ad73ea69cee2c260576f8bb329a1b1e068c2949  Zookeeper/Zookeeper_2k.log
d2d04c5140ddd1f5bd4b0e55bd8b2bcb567a88955fb36d0da5440b7a0b84215c  Android/Android_2k.log_structured_corrected.csv
cf14ee33db62dd6c9ef2a8c53746a9805ab94fdafb12728067d18d1e706142a5  Apache/Apache_2k.log_structured_corrected.csv
af25e46fa90396048e88cde40a0ffbe52232f72a6a3cf7f5c00ab6b2a1d49a85  BGL/BGL_2k.log_structured_corrected.csv
3e81e0a895615122aef4d598e91bf8ce053ce7c47e4b4f9cabc45ab9c7dfa9a6  HDFS/HDFS_2k.log_structured_corrected.csv
0d81d66a9ec7118dba9252c9ea59f746e6eff32f8fb75d9437694bbf1fd5ceb2  Hadoop/Hadoop_2k.log_structured_corrected.csv
6fde5422e311176f43b95fb4c05d42e63760e188e546592b43f3cf8a4c5f58b0  Mac/Mac_2k.log_structured_corrected.csv
da0b79a11d4bb541b843320012cdd379ce47e4fb5bd64f62bfc33da61ebd515a  OpenSSH/OpenSSH_2k.log_structured_corrected.csv
d749c9dcac5768a91393a5ab5a961d67b2e97d7683052ed9ff3d1f11d0c76172  Spark/Spark_2k.log_structured_corrected.csv
099a7a6d941846f958fe5287ff14968d9fa874f09c7d133a0aae29200dc34d61  Zookeeper/Zookeeper_2k.log_structured_corrected.csv
"

mkdir -p "$out"
cd "$out"
while read -r sum path; do
  [[ -z "$sum" ]] && continue
  mkdir -p "$(dirname "$path")"
  case "$path" in
    *.csv) url="$labels/$path" ;;
    *) url="$loghub/$path" ;;
  esac
  if ! echo "$sum  $path" | sha256sum -c --status 2>/dev/null; then
    curl -fsSL --retry 3 -o "$path.part" "$url" || {
      echo "fetch_loghub: cannot fetch $url (network?)" >&2
      exit 1
    }
    mv "$path.part" "$path"
  fi
  echo "$sum  $path" | sha256sum -c --quiet || {
    echo "fetch_loghub: $path differs from the copy the shipped weights were trained on ($url)" >&2
    exit 1
  }
done <<<"$sums"

# logsift eval and the trainers read each set's header format and files from here.
cat >datasets.json <<'EOF'
{
 "HDFS": {"log": "HDFS/HDFS_2k.log", "truth": "HDFS/HDFS_2k.log_structured_corrected.csv",
          "format": "<Date> <Time> <Pid> <Level> <Component>: <Content>"},
 "Hadoop": {"log": "Hadoop/Hadoop_2k.log", "truth": "Hadoop/Hadoop_2k.log_structured_corrected.csv",
            "format": "<Date> <Time> <Level> [<Process>] <Component>: <Content>"},
 "Spark": {"log": "Spark/Spark_2k.log", "truth": "Spark/Spark_2k.log_structured_corrected.csv",
           "format": "<Date> <Time> <Level> <Component>: <Content>"},
 "Zookeeper": {"log": "Zookeeper/Zookeeper_2k.log", "truth": "Zookeeper/Zookeeper_2k.log_structured_corrected.csv",
               "format": "<Date> <Time> - <Level>  [<Node>:<Component>@<Id>] - <Content>"},
 "BGL": {"log": "BGL/BGL_2k.log", "truth": "BGL/BGL_2k.log_structured_corrected.csv",
         "format": "<Label> <Timestamp> <Date> <Node> <Time> <NodeRepeat> <Type> <Component> <Level> <Content>"},
 "Android": {"log": "Android/Android_2k.log", "truth": "Android/Android_2k.log_structured_corrected.csv",
             "format": "<Date> <Time>  <Pid>  <Tid> <Level> <Component>: <Content>"},
 "Apache": {"log": "Apache/Apache_2k.log", "truth": "Apache/Apache_2k.log_structured_corrected.csv",
            "format": "[<Time>] [<Level>] <Content>"},
 "OpenSSH": {"log": "OpenSSH/OpenSSH_2k.log", "truth": "OpenSSH/OpenSSH_2k.log_structured_corrected.csv",
             "format": "<Date> <Day> <Time> <Component> sshd[<Pid>]: <Content>"},
 "Mac": {"log": "Mac/Mac_2k.log", "truth": "Mac/Mac_2k.log_structured_corrected.csv",
         "format": "<Month>  <Date> <Time> <User> <Component>[<PID>]( (<Address>))?: <Content>"}
}
EOF
echo "fetch_loghub: nine sets in $out, checksums match; use LOGSIFT_LOGHUB=$out"
