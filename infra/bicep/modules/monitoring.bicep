// Log Analytics workspace, workspace-based Application Insights that accepts only AAD-authenticated
// ingestion, the results workbook and the nightly regression alert (both built from queries/).
param namePrefix string
param location string
param tags object
@description('Principal allowed to publish telemetry (Monitoring Metrics Publisher on Application Insights).')
param publisherPrincipalId string
@description('Where the regression alert sends mail; empty: the alert fires without notifying anyone.')
param alertEmail string

resource workspace 'Microsoft.OperationalInsights/workspaces@2023-09-01' = {
  name: '${namePrefix}-logs'
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: 30
    features: {
      // Queries and ingestion only with Entra ID: no workspace shared keys.
      disableLocalAuth: true
    }
  }
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' = {
  name: '${namePrefix}-appi'
  location: location
  tags: tags
  kind: 'web'
  properties: {
    Application_Type: 'web'
    WorkspaceResourceId: workspace.id
    IngestionMode: 'LogAnalytics'
    DisableLocalAuth: true
  }
}

resource publisher 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  scope: appInsights
  name: guid(appInsights.id, publisherPrincipalId, '3913510d-42f4-4e42-8a64-420c390055eb')
  properties: {
    principalId: publisherPrincipalId
    principalType: 'ServicePrincipal'
    // Monitoring Metrics Publisher
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '3913510d-42f4-4e42-8a64-420c390055eb')
  }
}

resource workbook 'Microsoft.Insights/workbooks@2023-06-01' = {
  name: guid(resourceGroup().id, namePrefix, 'storagebench-workbook')
  location: location
  tags: tags
  kind: 'shared'
  properties: {
    displayName: 'StorageBench results'
    category: 'workbook'
    sourceId: workspace.id
    serializedData: loadTextContent('../../../queries/workbook.json')
  }
}

resource actionGroup 'Microsoft.Insights/actionGroups@2023-01-01' = if (!empty(alertEmail)) {
  name: '${namePrefix}-alerts'
  location: 'global'
  tags: tags
  properties: {
    groupShortName: 'sbench'
    enabled: true
    emailReceivers: [
      {
        name: 'owner'
        emailAddress: alertEmail
        useCommonAlertSchema: true
      }
    ]
  }
}

resource regressionAlert 'Microsoft.Insights/scheduledQueryRules@2023-03-15-preview' = {
  name: '${namePrefix}-nightly-regression'
  location: location
  tags: tags
  properties: {
    displayName: 'StorageBench nightly run regressed'
    description: 'A nightly run fell outside its trailing baseline (median and MAD of the last 5-14 nights).'
    severity: 2
    enabled: true
    scopes: [
      workspace.id
    ]
    evaluationFrequency: 'PT6H'
    windowSize: 'P1D'
    muteActionsDuration: 'P1D'
    autoMitigate: false
    criteria: {
      allOf: [
        {
          query: loadTextContent('../../../queries/regression-alert.kql')
          timeAggregation: 'Count'
          operator: 'GreaterThan'
          threshold: 0
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    actions: {
      actionGroups: empty(alertEmail) ? [] : [
        actionGroup.id
      ]
    }
  }
}

output workspaceId string = workspace.id
output workspaceName string = workspace.name
output appInsightsName string = appInsights.name
