// StorageBench in one resource group: a Function App on Flex Consumption with a user-assigned
// identity, its host storage, separate target storage account(s) for the measured writes, Log
// Analytics (local auth off) + Application Insights (AAD ingestion only), diagnostic settings to the
// workspace, the results workbook, the nightly regression alert, and least-privilege role assignments.
// No secrets in parameters or outputs; no basic publishing credentials.
targetScope = 'subscription'

@minLength(1)
@maxLength(64)
@description('azd environment name; also the default name prefix.')
param environmentName string

@description('Azure region for every resource.')
param location string

@minLength(2)
@maxLength(11)
@description('Prefix for resource names (lowercase letters and digits).')
param namePrefix string = 'sb${take(toLower(replace(environmentName, '-', '')), 9)}'

@minValue(1)
@maxValue(1000)
@description('Most instances the Function App may scale out to (slices run on these).')
param maximumInstanceCount int = 40

@allowed([512, 2048, 4096])
@description('Memory per instance in MB.')
param instanceMemoryMB int = 2048

@description('NCRONTAB schedule (UTC) of the nightly run; default 02:00 every day.')
param nightlySchedule string = '0 0 2 * * *'

@description('Run spec (JSON) of the nightly run.')
param nightlySpec string = loadTextContent('../../specs/quick.json')

@minValue(1)
@maxValue(8)
@description('How many target storage accounts receive the benchmark traffic.')
param targetAccountCount int = 1

@allowed(['Standard_LRS', 'Standard_ZRS', 'Standard_GRS', 'Standard_RAGRS', 'Standard_GZRS', 'Standard_RAGZRS', 'Premium_LRS', 'Premium_ZRS'])
@description('Redundancy of the target accounts (what is being measured).')
param targetSku string = 'Standard_LRS'

@description('E-mail for the regression alert; empty: the alert fires without notifying anyone.')
param alertEmail string = ''

@description('Close host storage to every network but the app\'s own (VNet integration, a service endpoint). Off by default: then the CLI outside Azure cannot read the results there (docs/function-app.md).')
param restrictHostStorageNetwork bool = false

@description('Send the target accounts\' request logs to the workspace too: one row per measured request, paid per GB. Metrics are always sent.')
param targetRequestLogs bool = false

var tags = { 'azd-env-name': environmentName, application: 'storagebench' }
var suffix = take(uniqueString(subscription().id, environmentName, location), 6)
var deploymentContainerName = 'app-package'
var targetNames = [for i in range(0, targetAccountCount): toLower('${namePrefix}t${i}${suffix}')]
// Built-in role definitions.
var storageBlobDataOwner = 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b'
var storageBlobDataContributor = 'ba92f5b4-2d11-453d-a403-e96b0029c9fe'
var storageQueueDataContributor = '974c5e8b-45b9-4653-ba55-5f855dd0fb88'
var storageTableDataContributor = '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3'

resource rg 'Microsoft.Resources/resourceGroups@2024-03-01' = {
  name: 'rg-${environmentName}'
  location: location
  tags: tags
}

module identity 'modules/identity.bicep' = {
  scope: rg
  params: {
    name: '${namePrefix}-id'
    location: location
    tags: tags
  }
}

module network 'modules/network.bicep' = if (restrictHostStorageNetwork) {
  scope: rg
  params: {
    namePrefix: namePrefix
    location: location
    tags: tags
  }
}

module hostStorage 'modules/storage.bicep' = {
  scope: rg
  params: {
    name: toLower('${namePrefix}host${suffix}')
    location: location
    tags: tags
    skuName: 'Standard_LRS'
    containers: [deploymentContainerName]
    workspaceId: monitoring.outputs.workspaceId
    allowedSubnetId: restrictHostStorageNetwork ? network!.outputs.appSubnetId : ''
  }
}

module targets 'modules/storage.bicep' = [for i in range(0, targetAccountCount): {
  scope: rg
  name: 'target${i}'
  params: {
    name: targetNames[i]
    location: location
    tags: tags
    skuName: targetSku
    workspaceId: monitoring.outputs.workspaceId
    requestLogs: targetRequestLogs
  }
}]

// Host storage: the Functions host needs Blob Data Owner; Durable Functions' Azure Storage provider
// needs queues and tables. The results table lives here too.
module hostRoles 'modules/storage-roles.bicep' = {
  scope: rg
  params: {
    storageAccountName: hostStorage.outputs.name
    principalId: identity.outputs.principalId
    roleDefinitionIds: [storageBlobDataOwner, storageQueueDataContributor, storageTableDataContributor]
  }
}

// Target accounts: the benchmark creates, writes and deletes its own tables and containers, nothing else.
module targetRoles 'modules/storage-roles.bicep' = [for i in range(0, targetAccountCount): {
  scope: rg
  name: 'targetRoles${i}'
  params: {
    storageAccountName: targets[i].outputs.name
    principalId: identity.outputs.principalId
    roleDefinitionIds: [storageBlobDataContributor, storageTableDataContributor]
  }
}]

module monitoring 'modules/monitoring.bicep' = {
  scope: rg
  params: {
    namePrefix: namePrefix
    location: location
    tags: tags
    publisherPrincipalId: identity.outputs.principalId
    alertEmail: alertEmail
  }
}

module functionApp 'modules/functionapp.bicep' = {
  scope: rg
  params: {
    namePrefix: namePrefix
    location: location
    tags: tags
    identityId: identity.outputs.id
    identityClientId: identity.outputs.clientId
    hostStorageName: hostStorage.outputs.name
    deploymentContainerName: deploymentContainerName
    appInsightsName: monitoring.outputs.appInsightsName
    maximumInstanceCount: maximumInstanceCount
    instanceMemoryMB: instanceMemoryMB
    nightlySchedule: nightlySchedule
    nightlySpec: nightlySpec
    targetTableEndpoints: join(map(targetNames, n => 'https://${n}.table.${environment().suffixes.storage}/'), ',')
    targetBlobEndpoints: join(map(targetNames, n => 'https://${n}.blob.${environment().suffixes.storage}/'), ',')
    workspaceId: monitoring.outputs.workspaceId
    subnetId: restrictHostStorageNetwork ? network!.outputs.appSubnetId : ''
  }
  dependsOn: [hostRoles, targets]
}

output AZURE_RESOURCE_GROUP string = rg.name
output FUNCTION_APP_NAME string = functionApp.outputs.name
output FUNCTION_APP_URL string = 'https://${functionApp.outputs.defaultHostName}'
output LOG_ANALYTICS_WORKSPACE_NAME string = monitoring.outputs.workspaceName
output TARGET_ACCOUNT_NAMES array = targetNames
