#!/usr/bin/env bash
# Deploys StorageBench to your subscription with the az CLI (for users without azd):
# infra/bicep at subscription scope, then the Function App code (functions/StorageBench.Functions).
#   ./scripts/deploy.sh --env NAME --location REGION [--param NAME=VALUE]... [--what-if]
# Example: ./scripts/deploy.sh --env storagebench-dev --location westeurope --param targetAccountCount=2
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
usage() { sed -n '2,5p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

env_name="" location="" what_if=0 params=()
while [ $# -gt 0 ]; do
  case "$1" in
    --env) [ $# -ge 2 ] || usage; env_name="$2"; shift 2 ;;
    --location) [ $# -ge 2 ] || usage; location="$2"; shift 2 ;;
    --param) [ $# -ge 2 ] || usage; params+=("$2"); shift 2 ;;
    --what-if) what_if=1; shift ;;
    *) echo "error: unknown argument '$1'" >&2; usage ;;
  esac
done
[ -n "$env_name" ] || { echo "error: --env is required (1-64 letters, digits or '-')" >&2; exit 2; }
[[ "$env_name" =~ ^[A-Za-z0-9-]{1,64}$ ]] || { echo "error: --env '$env_name' must be 1-64 letters, digits or '-'" >&2; exit 2; }
[ -n "$location" ] || { echo "error: --location is required (an Azure region, e.g. westeurope)" >&2; exit 2; }
for p in "${params[@]+"${params[@]}"}"; do
  [[ "$p" =~ ^[A-Za-z][A-Za-z0-9]*=.*$ ]] || { echo "error: --param '$p' must look like name=value" >&2; exit 2; }
done
command -v az >/dev/null || { echo "error: the az CLI is required (https://learn.microsoft.com/cli/azure/install-azure-cli)" >&2; exit 1; }

action=create; [ $what_if -eq 1 ] && action=what-if
az deployment sub "$action" --name "storagebench-$env_name" --location "$location" \
  --template-file "$root/infra/bicep/main.bicep" \
  --parameters environmentName="$env_name" location="$location" "${params[@]+"${params[@]}"}"
[ $what_if -eq 1 ] && exit 0

project="$root/functions/StorageBench.Functions/StorageBench.Functions.csproj"
app=$(az deployment sub show --name "storagebench-$env_name" --query properties.outputs.FUNCTION_APP_NAME.value -o tsv)
group=$(az deployment sub show --name "storagebench-$env_name" --query properties.outputs.AZURE_RESOURCE_GROUP.value -o tsv)
publish=$(mktemp -d)
dotnet publish "$project" -c Release -o "$publish/app"
(cd "$publish/app" && zip -qr "$publish/app.zip" .)
az functionapp deployment source config-zip --resource-group "$group" --name "$app" --src "$publish/app.zip"
