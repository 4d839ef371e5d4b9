// Placeholder until the conversation-store work lands the real DynamoDB Local runner.
export default function setup(): void {}
