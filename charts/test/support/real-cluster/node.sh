#!/usr/bin/env bash
# The node's container half, started by `ip netns exec <netns> bash node.sh DIR CGROUP_ROOT`:
# `ip netns exec` gives each call a fresh /sys (so an empty /sys/fs/cgroup) in a private mount
# namespace. containerd, runc and kubelet must see the same cgroup hierarchies and the same mounts
# (volumes, container root filesystems), so both run from this one shell after it has mounted the
# host's hierarchies again. Mounts made here die with the mount namespace: none reach the host.
set -euo pipefail
dir=$1
cgroup_root=$2

# The host's cgroup mounts (read by the caller before entering the namespace), same options.
while read -r source target fstype options _; do
  mkdir -p "$target"
  mount -t "$fstype" -o "$options" "$source" "$target"
done <"$dir/cgroup-mounts"

# kubelet wants its --cgroup-root to exist in every hierarchy; a new cpuset cgroup starts with no
# CPUs or memory nodes, so it inherits the root's.
for hierarchy in /sys/fs/cgroup/*/; do
  [ -d "$hierarchy" ] && [ ! -L "${hierarchy%/}" ] || continue
  mkdir -p "$hierarchy$cgroup_root"
  if [ -f "${hierarchy}cpuset.cpus" ]; then
    cat "${hierarchy}cpuset.cpus" >"$hierarchy$cgroup_root/cpuset.cpus"
    cat "${hierarchy}cpuset.mems" >"$hierarchy$cgroup_root/cpuset.mems"
  fi
done

containerd --config "$dir/containerd/config.toml" >>"$dir/logs/containerd.log" 2>&1 &
for _ in $(seq 100); do
  [ -S "$dir/containerd/containerd.sock" ] && break
  sleep 0.1
done

"$KUBELET" --config="$dir/kubelet/config.yaml" --kubeconfig="$dir/admin.kubeconfig" \
  --root-dir="$dir/kubelet/root" --cert-dir="$dir/kubelet/pki" \
  --hostname-override="$NODE_NAME" --node-ip="$NODE_IP" >>"$dir/logs/kubelet.log" 2>&1 &

# Either one exiting ends the node (the caller sees it and its logs).
wait -n
