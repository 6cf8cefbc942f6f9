/**
 * The performance programme's validity gate on topic rates: a run counts when every prepare got one fulfil
 * (fulfil/prepare = 1.0) and two notifications, the prepare's to the payee and the commit's
 * (notification/prepare = 2.0), read as the growth of each topic's end offsets over the run.
 */
export interface TopicGrowth {
  readonly prepare: number;
  readonly fulfil: number;
  readonly notification: number;
}

export interface ValidityGate extends TopicGrowth {
  readonly fulfilPerPrepare: number;
  readonly notificationPerPrepare: number;
  readonly valid: boolean;
}

/** Ratios are judged at two decimals, as the programme reports them. */
export function validityGate(growth: TopicGrowth): ValidityGate {
  const ratio = (x: number) => (growth.prepare === 0 ? 0 : x / growth.prepare);
  const fulfilPerPrepare = ratio(growth.fulfil);
  const notificationPerPrepare = ratio(growth.notification);
  const near = (x: number, want: number) => Math.abs(x - want) < 0.005;
  return {
    ...growth,
    fulfilPerPrepare,
    notificationPerPrepare,
    valid: growth.prepare > 0 && near(fulfilPerPrepare, 1) && near(notificationPerPrepare, 2),
  };
}

/** The switch's topics the gate reads, under its topic prefix (central-ledger's general template). */
export function gateTopics(prefix: string): Record<keyof TopicGrowth, string> {
  return {
    prepare: `${prefix}topic-transfer-prepare`,
    fulfil: `${prefix}topic-transfer-fulfil`,
    notification: `${prefix}topic-notification-event`,
  };
}
