// One storage account with the project's fixed security settings: no shared keys (identity only),
// no public blob access, TLS 1.2 minimum, HTTPS only, and its diagnostics sent to the workspace.
// Used for the host account and every target.
@description('Storage account name (3-24 lowercase letters and digits).')
param name string
param location string
param tags object
@description('Redundancy, e.g. Standard_LRS or Standard_ZRS.')
param skuName string
@description('Blob containers to create (e.g. the Flex Consumption deployment package container).')
param containers array = []
@description('Log Analytics workspace that receives the account\'s metrics and, with requestLogs, its request logs.')
param workspaceId string
@description('Send every request\'s log (read, write, delete) too; on a target that is a row per measured request.')
param requestLogs bool = true
@description('When set, only this subnet (and trusted Azure services) reach the account; empty: all networks.')
param allowedSubnetId string = ''

resource account 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: name
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    name: skuName
  }
  properties: {
    allowSharedKeyAccess: false
    defaultToOAuthAuthentication: true
    allowBlobPublicAccess: false
    minimumTlsVersion: 'TLS1_2'
    supportsHttpsTrafficOnly: true
    allowCrossTenantReplication: false
    publicNetworkAccess: 'Enabled'
    accessTier: 'Hot'
    networkAcls: empty(allowedSubnetId) ? {
      defaultAction: 'Allow'
      bypass: 'AzureServices'
    } : {
      defaultAction: 'Deny'
      bypass: 'AzureServices'
      virtualNetworkRules: [
        {
          id: allowedSubnetId
          action: 'Allow'
        }
      ]
    }
  }
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' = {
  parent: account
  name: 'default'
}

resource queueService 'Microsoft.Storage/storageAccounts/queueServices@2023-05-01' existing = {
  parent: account
  name: 'default'
}

resource tableService 'Microsoft.Storage/storageAccounts/tableServices@2023-05-01' existing = {
  parent: account
  name: 'default'
}

resource blobContainers 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = [for c in containers: {
  parent: blobService
  name: c
  properties: {
    publicAccess: 'None'
  }
}]

var transactionMetrics = [
  {
    category: 'Transaction'
    enabled: true
  }
]

var serviceLogs = requestLogs ? [
  {
    categoryGroup: 'allLogs'
    enabled: true
  }
] : []

resource accountDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  scope: account
  name: 'to-workspace'
  properties: {
    workspaceId: workspaceId
    metrics: transactionMetrics
  }
}

resource blobDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  scope: blobService
  name: 'to-workspace'
  properties: {
    workspaceId: workspaceId
    logs: serviceLogs
    metrics: transactionMetrics
  }
}

resource queueDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  scope: queueService
  name: 'to-workspace'
  properties: {
    workspaceId: workspaceId
    logs: serviceLogs
    metrics: transactionMetrics
  }
}

resource tableDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  scope: tableService
  name: 'to-workspace'
  properties: {
    workspaceId: workspaceId
    logs: serviceLogs
    metrics: transactionMetrics
  }
}

output id string = account.id
output name string = account.name
output blobEndpoint string = account.properties.primaryEndpoints.blob
output queueEndpoint string = account.properties.primaryEndpoints.queue
output tableEndpoint string = account.properties.primaryEndpoints.table
