import * as bedrock from 'aws-cdk-lib/aws-bedrock';
import { Construct } from 'constructs';
import type { ModelGuardrailTarget } from './api-function.js';

/**
 * The Bedrock Guardrail the stack creates with `guardrail: 'create'` (ADR 0013): the
 * prompt-attack filter at HIGH on input — the retrieved tickets, the archive and the inquiry,
 * which the model adapter sends as `guardContent` — and nothing else. Output strength is NONE,
 * as AWS requires for prompt attacks; no other filter, because the answer is tool input, which
 * Converse guardrails do not evaluate, and async streaming cannot mask sensitive information
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/guardrails-use-converse-api.html,
 * …/guardrails-streaming.html). A published version, so a console edit of the DRAFT does not
 * change what runs.
 */
export class ModelGuardrail extends Construct {
  readonly target: ModelGuardrailTarget;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const guardrail = new bedrock.CfnGuardrail(this, 'Guardrail', {
      name: `${this.node.addr.slice(0, 8)}-service-desk-prompt-attack`,
      description:
        'Prompt-attack filter over the tickets and inquiry the service-desk assistant reads',
      blockedInputMessaging:
        'この問い合わせまたは参照チケットは安全フィルターにより処理できませんでした。 / Blocked by the content safety filter.',
      blockedOutputsMessaging:
        'この回答は安全フィルターによりブロックされました。 / Blocked by the content safety filter.',
      contentPolicyConfig: {
        filtersConfig: [{ type: 'PROMPT_ATTACK', inputStrength: 'HIGH', outputStrength: 'NONE' }],
      },
    });
    const version = new bedrock.CfnGuardrailVersion(this, 'Version', {
      guardrailIdentifier: guardrail.attrGuardrailId,
      description: 'Published by the service-desk stack',
    });
    this.target = {
      identifier: guardrail.attrGuardrailId,
      version: version.attrVersion,
      arn: guardrail.attrGuardrailArn,
    };
  }
}
