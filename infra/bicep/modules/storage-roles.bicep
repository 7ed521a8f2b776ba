// Data-plane roles for one principal on one storage account (least privilege: only the roles named).
param storageAccountName string
param principalId string
@description('Role definition GUIDs to assign.')
param roleDefinitionIds array

resource account 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource assignments 'Microsoft.Authorization/roleAssignments@2022-04-01' = [for roleId in roleDefinitionIds: {
  scope: account
  name: guid(account.id, principalId, roleId)
  properties: {
    principalId: principalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleId)
  }
}]
