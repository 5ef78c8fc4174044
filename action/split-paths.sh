#!/usr/bin/env bash
# Splits the action's `paths` input into paths, each printed followed by a NUL byte:
#   - a YAML list, block (`- apps`, one item a line) or flow (`[apps, "my apps"]`): its items;
#   - several lines: one path a line, spaces inside a path kept;
#   - one line: paths separated by spaces (a path with a space needs one of the forms above).
# Blank lines and lines starting with `#` are skipped; a list item may be quoted ('…' or "…").
set -euo pipefail

trim() {
  local text="$1"
  text="${text#"${text%%[![:space:]]*}"}"
  text="${text%"${text##*[![:space:]]}"}"
  printf '%s' "$text"
}

unquote() {
  local text="$1" inner
  if [ "${#text}" -ge 2 ] && [ "${text:0:1}" = "'" ] && [ "${text: -1}" = "'" ]; then
    inner="${text:1:${#text}-2}"
    printf '%s' "${inner//\'\'/\'}"
  elif [ "${#text}" -ge 2 ] && [ "${text:0:1}" = '"' ] && [ "${text: -1}" = '"' ]; then
    inner="${text:1:${#text}-2}"
    inner="${inner//\\\"/\"}"
    printf '%s' "${inner//\\\\/\\}"
  else
    printf '%s' "$text"
  fi
}

emit() {
  local path
  path="$(unquote "$(trim "$1")")"
  [ -n "$path" ] && printf '%s\0' "$path"
  return 0
}

lines=()
while IFS= read -r line || [ -n "$line" ]; do
  line="$(trim "${line%$'\r'}")"
  case "$line" in
    "" | "#"*) ;;
    *) lines+=("$line") ;;
  esac
done <<< "${1-}"

[ "${#lines[@]}" -eq 0 ] && exit 0

block=true
for line in "${lines[@]}"; do
  case "$line" in
    "-" | "- "*) ;;
    *) block=false ;;
  esac
done

if [ "$block" = true ]; then
  for line in "${lines[@]}"; do
    emit "${line#-}"
  done
elif [ "${#lines[@]}" -eq 1 ] && [ "${lines[0]:0:1}" = "[" ] && [ "${lines[0]: -1}" = "]" ]; then
  # A flow list: items separated by commas outside quotes.
  flow="${lines[0]:1:${#lines[0]}-2}"
  item="" quote=""
  for ((i = 0; i < ${#flow}; i++)); do
    char="${flow:i:1}"
    if [ -n "$quote" ]; then
      [ "$char" = "$quote" ] && quote=""
    elif [ "$char" = "'" ] || [ "$char" = '"' ]; then
      quote="$char"
    elif [ "$char" = "," ]; then
      emit "$item"
      item=""
      continue
    fi
    item+="$char"
  done
  emit "$item"
elif [ "${#lines[@]}" -gt 1 ]; then
  for line in "${lines[@]}"; do
    emit "$line"
  done
else
  # One line: split on spaces without expanding globs (kvlint walks directories itself).
  set -f
  # shellcheck disable=SC2206
  words=(${lines[0]})
  set +f
  for word in "${words[@]}"; do
    emit "$word"
  done
fi
