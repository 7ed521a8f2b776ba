// The Function App on Flex Consumption (Linux, dotnet-isolated 10.0) running as a user-assigned
// managed identity: host storage, deployment package, telemetry and target accounts are all reached
// with that identity — no keys or connection strings with secrets in its settings. Basic publishing
// credentials (FTP and SCM) are off: deployment goes through Entra ID. Its logs and metrics go to the workspace.
param namePrefix string
param location string
param tags object
param identityId string
param identityClientId string
param hostStorageName string
param deploymentContainerName string
param appInsightsName string
@minValue(1)
@maxValue(1000)
param maximumInstanceCount int
@allowed([512, 2048, 4096])
param instanceMemoryMB int
@description('NCRONTAB schedule of the nightly run (six fields, UTC).')
param nightlySchedule string
@description('Run spec (JSON) of the nightly run.')
param nightlySpec string
@description('Table endpoints of the target accounts, comma-separated.')
param targetTableEndpoints string
@description('Blob endpoints of the target accounts, comma-separated, same order.')
param targetBlobEndpoints string
@description('Log Analytics workspace that receives the app\'s logs and metrics.')
param workspaceId string
@description('Subnet the app joins (VNet integration); empty: none.')
param subnetId string = ''

resource hostStorage 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: hostStorageName
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
}

resource plan 'Microsoft.Web/serverfarms@2024-04-01' = {
  name: '${namePrefix}-plan'
  location: location
  tags: tags
  kind: 'functionapp'
  sku: {
    tier: 'FlexConsumption'
    name: 'FC1'
  }
  properties: {
    reserved: true
  }
}

resource app 'Microsoft.Web/sites@2024-04-01' = {
  name: '${namePrefix}-func'
  location: location
  tags: union(tags, { 'azd-service-name': 'functions' })
  kind: 'functionapp,linux'
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identityId}': {}
    }
  }
  properties: {
    serverFarmId: plan.id
    httpsOnly: true
    virtualNetworkSubnetId: empty(subnetId) ? null : subnetId
    siteConfig: {
      minTlsVersion: '1.2'
      ftpsState: 'Disabled'
    }
    functionAppConfig: {
      deployment: {
        storage: {
          type: 'blobContainer'
          value: '${hostStorage.properties.primaryEndpoints.blob}${deploymentContainerName}'
          authentication: {
            type: 'UserAssignedIdentity'
            userAssignedIdentityResourceId: identityId
          }
        }
      }
      scaleAndConcurrency: {
        maximumInstanceCount: maximumInstanceCount
        instanceMemoryMB: instanceMemoryMB
      }
      runtime: {
        name: 'dotnet-isolated'
        version: '10.0'
      }
    }
  }

  resource settings 'config' = {
    name: 'appsettings'
    properties: {
      // Identity-based host storage: blob, queue and table, as Durable Functions' Azure Storage provider needs.
      AzureWebJobsStorage__credential: 'managedidentity'
      AzureWebJobsStorage__clientId: identityClientId
      AzureWebJobsStorage__blobServiceUri: hostStorage.properties.primaryEndpoints.blob
      AzureWebJobsStorage__queueServiceUri: hostStorage.properties.primaryEndpoints.queue
      AzureWebJobsStorage__tableServiceUri: hostStorage.properties.primaryEndpoints.table
      // Telemetry accepted only with AAD (local auth is disabled on the resource).
      APPLICATIONINSIGHTS_CONNECTION_STRING: appInsights.properties.ConnectionString
      APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'ClientId=${identityClientId};Authorization=AAD'
      // DefaultAzureCredential picks this user-assigned identity.
      AZURE_CLIENT_ID: identityClientId
      STORAGEBENCH_TARGET_TABLE_ENDPOINTS: targetTableEndpoints
      STORAGEBENCH_TARGET_BLOB_ENDPOINTS: targetBlobEndpoints
      // Results live in the host account, away from the measured traffic.
      STORAGEBENCH_RESULTS_TABLE_ENDPOINT: hostStorage.properties.primaryEndpoints.table
      STORAGEBENCH_NIGHTLY_SCHEDULE: nightlySchedule
      STORAGEBENCH_NIGHTLY_SPEC: nightlySpec
    }
  }
}

// No FTP and no basic-auth SCM (Kudu) credentials: a leaked publishing password cannot deploy code.
resource ftpPublishing 'Microsoft.Web/sites/basicPublishingCredentialsPolicies@2024-04-01' = {
  parent: app
  name: 'ftp'
  properties: {
    allow: false
  }
}

resource scmPublishing 'Microsoft.Web/sites/basicPublishingCredentialsPolicies@2024-04-01' = {
  parent: app
  name: 'scm'
  properties: {
    allow: false
  }
}

resource appDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  scope: app
  name: 'to-workspace'
  properties: {
    workspaceId: workspaceId
    logs: [
      {
        categoryGroup: 'allLogs'
        enabled: true
      }
    ]
    metrics: [
      {
        category: 'AllMetrics'
        enabled: true
      }
    ]
  }
}

output name string = app.name
output defaultHostName string = app.properties.defaultHostName
